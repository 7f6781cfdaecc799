// Runs the whole suite with node:test through tsx, once per backend:
// SQLite always; PostgreSQL when TEST_DATABASE lists it (see README).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const filter = process.argv.slice(2);
const files = findTests('test').filter((f) => filter.length === 0 || filter.some((p) => f.includes(p))).sort();
if (files.length === 0) {
  process.stderr.write(`no test files match ${filter.join(' ')}\n`);
  process.exit(1);
}
const backends = (process.env.TEST_BACKENDS ?? 'sqlite').split(',').map((b) => b.trim()).filter(Boolean);

let failed = false;
for (const backend of backends) {
  process.stdout.write(`\n=== test suite on ${backend} (${files.length} files) ===\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
    stdio: 'inherit',
    env: { ...process.env, TEST_DATABASE: backend },
  });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
