import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
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
});
