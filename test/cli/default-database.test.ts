import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/cli.js';

const run = promisify(execFile);

describe('the default database', () => {
  it('is data/cra.db in the project directory, whatever directory the process starts in', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'cra-cwd-'));
    try {
      // The built config, as `npm start` and `npx cra-admin` load it, with DATABASE_URL unset.
      const config = pathToFileURL(join(REPO_ROOT, 'dist', 'config.js')).href;
      const script = `import(${JSON.stringify(config)}).then((m) => console.log(m.loadConfig({}).databaseUrl))`;
      const env = { ...process.env };
      delete env.DATABASE_URL;
      for (const cwd of [elsewhere, join(REPO_ROOT, 'test')]) {
        const { stdout } = await run(process.execPath, ['-e', script], { cwd, env });
        assert.equal(stdout.trim(), `sqlite:${join(REPO_ROOT, 'data', 'cra.db')}`, `started in ${cwd}`);
      }
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
