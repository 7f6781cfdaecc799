import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/cli.js';
import { type RunningServer, startServer } from '../helpers/server.js';

// The walk-through, run as written: every ```sh block preceded by the marker <!-- walk-through -->
// runs, file by file in the order of WALK_THROUGH_FILES and in the order of each file, in one shell
// session (exports carry from block to block), from the project directory, against a server started
// here on a fresh SQLite database. Only PORT and DATABASE_URL are set for it; the documented
// commands read them (`${PORT:-8080}`, cra-admin's DATABASE_URL). Every block must exit 0.

const MARKER = '<!-- walk-through -->';

/**
 * Where the marked blocks live, in the order they run: the README's walk-through first, then the
 * docs (the triage in docs/api.md needs the README's signals; the signed checkpoint in docs/cli.md
 * comes last). Every docs/*.md must be listed, so that no marked block can be left out unseen.
 */
export const WALK_THROUGH_FILES = [
  'README.md',
  'docs/api.md',
  'docs/sbom.md',
  'docs/sbom-conformance.md',
  'docs/vulnerabilities.md',
  'docs/firmware-matching.md',
  'docs/art14.md',
  'docs/console.md',
  'docs/webhooks.md',
  'docs/disclosure.md',
  'docs/configuration.md',
  'docs/cli.md',
  'docs/operations.md',
  'docs/architecture.md',
  'docs/development.md',
  'docs/benchmarks.md',
];

/** The README held six marked blocks before it was split into docs/; none may go unmarked since. */
const MIN_BLOCKS = 6;

/** The marked blocks of one file, each with the line it starts on. */
export function walkThroughBlocks(markdown: string, file = 'README.md'): Array<{ file: string; line: number; script: string }> {
  const lines = markdown.split('\n');
  const blocks: Array<{ file: string; line: number; script: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== MARKER) continue;
    const open = lines.findIndex((l, j) => j > i && l.trim() !== '');
    if (open < 0 || lines[open] !== '```sh') throw new Error(`${file} line ${i + 1}: ${MARKER} must be followed by a \`\`\`sh block`);
    const close = lines.findIndex((l, j) => j > open && l === '```');
    if (close < 0) throw new Error(`${file} line ${open + 1}: unterminated block`);
    blocks.push({ file, line: open + 2, script: lines.slice(open + 1, close).join('\n') });
  }
  return blocks;
}

/** Every marked block of WALK_THROUGH_FILES, in the order they run. */
export function allWalkThroughBlocks(): Array<{ file: string; line: number; script: string }> {
  return WALK_THROUGH_FILES.flatMap((file) => walkThroughBlocks(readFileSync(join(REPO_ROOT, file), 'utf8'), file));
}

/** `npx cra-admin …` as the built executable itself; any other npx command as npx runs it. */
const NPX_SHIM = `npx() { if [ "$1" = cra-admin ]; then shift; node ${JSON.stringify(join(REPO_ROOT, 'dist/cli/main.js'))} "$@"; else command npx "$@"; fi; }`;

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
  const blocks = allWalkThroughBlocks();
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

  it('reads every docs/*.md file, and finds no fewer marked blocks than before the split', (t) => {
    const docs = readdirSync(join(REPO_ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`);
    const unlisted = docs.filter((file) => !WALK_THROUGH_FILES.includes(file));
    assert.deepEqual(unlisted, [], 'every docs/*.md is in WALK_THROUGH_FILES (add a new one where its blocks belong in the order)');
    const twice = WALK_THROUGH_FILES.filter((file, i) => WALK_THROUGH_FILES.indexOf(file) !== i);
    assert.deepEqual(twice, [], 'each file is listed once (its blocks would run twice)');
    const perFile = WALK_THROUGH_FILES.map((file) => `${file}: ${blocks.filter((b) => b.file === file).length}`).join(', ');
    t.diagnostic(`${blocks.length} marked blocks (${perFile})`);
    assert.ok(blocks.length >= MIN_BLOCKS, `${blocks.length} marked blocks, at least ${MIN_BLOCKS} expected (${perFile})`);
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
    it(`block ${i + 1} (${block.file} line ${block.line}) exits 0`, async () => {
      // Each block runs with the exports of the blocks before it, and saves its own.
      // The README's own blocks run the real `npx cra-admin` (what a reader runs first); those of
      // docs/ run the same built executable without npm's start-up, half a second a command.
      const npx = block.file === 'README.md' ? '' : `${NPX_SHIM}\n`;
      const script = `set -eo pipefail\nsource ${JSON.stringify(state())}\n${npx}${block.script}\nexport -p > ${JSON.stringify(state())}\n`;
      const result = await bash(script, env);
      assert.equal(
        result.code,
        0,
        `${block.file} line ${block.line}:\n${block.script}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
      );
    });
  }
});
