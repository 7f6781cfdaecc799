import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/cli.js';
import { type RunningServer, startServer } from '../helpers/server.js';

// The README's walk-through, run as written: every ```sh block preceded by the marker
// <!-- walk-through --> runs, in the order of the file, in one shell session (exports carry from
// block to block), from the project directory, against a server started here on a fresh SQLite
// database. Only PORT and DATABASE_URL are set for it; the README's commands read them
// (`${PORT:-8080}`, cra-admin's DATABASE_URL). Every block must exit 0.

const MARKER = '<!-- walk-through -->';

/** The marked blocks, each with the line it starts on. */
export function walkThroughBlocks(markdown: string): Array<{ line: number; script: string }> {
  const lines = markdown.split('\n');
  const blocks: Array<{ line: number; script: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== MARKER) continue;
    const open = lines.findIndex((l, j) => j > i && l.trim() !== '');
    if (open < 0 || lines[open] !== '```sh') throw new Error(`README line ${i + 1}: ${MARKER} must be followed by a \`\`\`sh block`);
    const close = lines.findIndex((l, j) => j > open && l === '```');
    if (close < 0) throw new Error(`README line ${open + 1}: unterminated block`);
    blocks.push({ line: open + 2, script: lines.slice(open + 1, close).join('\n') });
  }
  return blocks;
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('README walk-through', () => {
  const blocks = walkThroughBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
  let dir: string;
  let server: RunningServer;
  let env: NodeJS.ProcessEnv;
  const state = () => join(dir, 'state.sh');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cra-readme-'));
    const databaseUrl = `sqlite:${join(dir, 'cra.db')}`;
    server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
    // The user's environment minus anything that would point the commands elsewhere.
    env = { ...process.env, PORT: String(server.port), DATABASE_URL: databaseUrl, npm_config_offline: 'true' };
    for (const name of ['CRA', 'KEY', 'CI_KEY', 'REDIS_URL', 'API_HOSTS']) delete env[name];
    writeFileSync(state(), '');
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has marked blocks covering the API, the SBOM push, the reports and their triage', () => {
    assert.ok(blocks.length >= 4, `${blocks.length} marked blocks`);
    const all = blocks.map((b) => b.script).join('\n');
    for (const step of ['org create', 'key create', 'product add', '/products', '/sbom', '/incidents', 'case open', 'key rotate']) {
      assert.ok(all.includes(step), `the walk-through runs ${step}`);
    }
    assert.ok(all.indexOf('/incidents') < all.indexOf('case open'), 'signals exist before a case is opened on one');
  });

  for (const [i, block] of blocks.entries()) {
    it(`block ${i + 1} (README line ${block.line}) exits 0`, async () => {
      // Each block runs with the exports of the blocks before it, and saves its own.
      const script = `set -eo pipefail\nsource ${JSON.stringify(state())}\n${block.script}\nexport -p > ${JSON.stringify(state())}\n`;
      const result = await bash(script, env);
      assert.equal(
        result.code,
        0,
        `README line ${block.line}:\n${block.script}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
      );
    });
  }
});
