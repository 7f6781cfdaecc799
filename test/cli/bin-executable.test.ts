import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/cli.js';

// `cra-admin` is package.json's bin, dist/cli/main.js. npx runs it through a link in its own
// cache, made once per project path: a clone in a path npx has seen before reuses that link, and
// then only the file's own mode lets it run. The build makes it executable (tsc writes 0644).
describe('the cra-admin executable', () => {
  it('is built executable and runs by itself, through its shebang', () => {
    const bin = join(REPO_ROOT, 'dist/cli/main.js');
    assert.equal(statSync(bin).mode & 0o111, 0o111, 'executable by owner, group and others');
    const help = execFileSync(bin, ['--help'], { encoding: 'utf8' });
    assert.match(help, /Usage: cra-admin/);
  });

  // npx installs the project into its cache the first time, which runs `prepare` (the build). A
  // build that rewrote dist/ in place there broke servers and CLIs starting at that moment (seen
  // in CI: "does not provide an export named …"); the build skips when dist/ is current.
  it('the first `npx cra-admin` on a machine leaves the built dist/ alone', () => {
    const cache = mkdtempSync(join(tmpdir(), 'cra-npx-cache-'));
    try {
      const server = join(REPO_ROOT, 'dist/server.js');
      const before = statSync(server).mtimeMs;
      const env = { ...process.env, npm_config_cache: cache, npm_config_offline: 'true', npm_config_update_notifier: 'false' };
      const help = execFileSync('npx', ['cra-admin', '--help'], { cwd: REPO_ROOT, env, encoding: 'utf8' });
      assert.match(help, /Usage: cra-admin/);
      assert.equal(statSync(server).mtimeMs, before, 'dist/server.js was not rewritten');
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
