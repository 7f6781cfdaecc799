// Runs the whole suite with node:test through tsx, once per backend:
//   sqlite    — the embedded default (SQLite file, in-process rate limiting); always.
//   postgres  — the scale-out configuration (PostgreSQL + Redis); when both are reachable,
//               and always in CI (CI=true), where their absence fails the run.
// Arguments filter test files by path substring. TEST_BACKENDS=sqlite,postgres forces a list.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

function reachable(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort) });
    socket.setTimeout(1500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const filter = process.argv.slice(2);
const files = findTests('test')
  .filter((f) => filter.length === 0 || filter.some((p) => f.includes(p)))
  .sort();
if (files.length === 0) {
  process.stderr.write(`no test files match ${filter.join(' ')}\n`);
  process.exit(1);
}

let backends;
if (process.env.TEST_BACKENDS) {
  backends = process.env.TEST_BACKENDS.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
} else {
  backends = ['sqlite'];
  const pg = await reachable(PG_URL, 5432);
  const redis = await reachable(REDIS_URL, 6379);
  if (pg && redis) backends.push('postgres');
  else if (process.env.CI === 'true') {
    process.stderr.write(`CI needs PostgreSQL (${PG_URL}: ${pg ? 'up' : 'DOWN'}) and Redis (${REDIS_URL}: ${redis ? 'up' : 'DOWN'})\n`);
    process.exit(1);
  } else {
    process.stdout.write('PostgreSQL or Redis not reachable: running the SQLite suite only\n');
  }
}

const totals = { pass: 0, fail: 0 };
for (const backend of backends) {
  process.stdout.write(`\n=== test suite on ${backend} (${files.length} files) ===\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TEST_DATABASE: backend },
    maxBuffer: 256 * 1024 * 1024,
  });
  const out = result.stdout.toString();
  process.stdout.write(out);
  totals.pass += Number(/ℹ pass (\d+)/.exec(out)?.[1] ?? 0);
  totals.fail += Number(/ℹ fail (\d+)/.exec(out)?.[1] ?? 0);
  if (result.status !== 0) totals.fail += totals.fail === 0 ? 1 : 0;
}
process.stdout.write(`\n${backends.join('+')}: ${totals.pass} passed, ${totals.fail} failed\n`);
process.exit(totals.fail > 0 ? 1 : 0);
