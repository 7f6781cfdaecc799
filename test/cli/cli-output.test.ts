import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createIncidentService } from '../../src/incidents/incidents.service.js';
import { createOrgService } from '../../src/orgs/orgs.service.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/**
 * Runs cra-admin with stdout on a pipe that nobody reads until the process has exited or has
 * been waiting `holdMs` (a slow reader such as `| jq` on a busy machine), then reads it all.
 */
function runWithSlowReader(args: string[], env: Record<string, string>, holdMs: number): Promise<{ code: number | null; stdout: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.on('error', reject);
    child.stdout.pause();
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const chunks: Buffer[] = [];
    const start = () => {
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.stdout.resume();
    };
    const timer = setTimeout(start, holdMs);
    void exited.then(() => {
      clearTimeout(timer);
      start();
    });
    child.on('close', async () => resolve({ code: await exited, stdout: Buffer.concat(chunks) }));
  });
}

describe('cra-admin output on a pipe', () => {
  let testDb: TestDatabase;
  before(async () => {
    testDb = await createTestDatabase();
    const orgs = createOrgService(testDb.database);
    const org = await orgs.createOrg({ slug: 'acme' });
    const incidents = createIncidentService(testDb.database, orgs);
    // 40 reports of ~30 KiB: the JSON listing is well over 1 MiB.
    for (let i = 0; i < 40; i++) {
      await incidents.receiveSignal({ orgId: org.id, source: 'test' }, { description: `report ${i} `.padEnd(30_000, 'x') });
    }
  });
  after(async () => testDb?.drop());

  it('arrives whole (> 1 MiB) even when the reader starts late, exit 0', async () => {
    const { code, stdout } = await runWithSlowReader(
      ['signal', 'list', '--org', 'acme', '--json'],
      { DATABASE_URL: testDb.url, LOG_LEVEL: 'silent' },
      1500,
    );
    assert.ok(stdout.length > 1024 * 1024, `only ${stdout.length} bytes arrived`);
    const rows = JSON.parse(stdout.toString('utf8')) as Array<{ incident_number: number }>;
    assert.equal(rows.length, 40);
    assert.equal(code, 0);
  });
});
