// The test runner: every test file in a process of its own (node:test through tsx), several at
// once, a line as each file ends. What runs where:
//   - A file that uses the run's database (it imports test/helpers/db.ts, directly or through
//     another helper) runs once per backend: sqlite, the embedded default, always; postgres
//     (PostgreSQL + Redis) when both are reachable, and always in CI (CI=true), where their
//     absence fails the run. Every other file runs once.
//     A file whose first lines hold `// test-backend: one` runs on the first backend only (the
//     database is its setting, not what it tests).
//   - Tier: a file whose first lines hold `// test-tier: slow` (browsers, faults on private
//     servers, scale, big documents) runs with --slow or --all; the rest by default.
// Arguments: --slow | --all, and path substrings that filter the files.
// Environment: TEST_BACKENDS=sqlite,postgres names the backends; TEST_CONCURRENCY the files run
// at once (default: twice the cores, at least 2); TEST_LOADER=tsx runs the TypeScript through tsx.
//
// By default each TypeScript file of src/ and test/ is first compiled beside itself (x.ts → x.js,
// esbuild, inline source maps, ignored by git) and the test processes run plain JavaScript:
// tsx's loader hooks cost each process about a second of CPU (every module of node_modules
// passes through them), more than most test files take. Beside itself, every relative path
// (fixtures, templates, worker threads, the repository's root) stays what it is in src/ and test/.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { buildSync } from 'esbuild';
import { connect } from 'node:net';
import { availableParallelism } from 'node:os';
import { dirname, join, normalize, relative } from 'node:path';

const PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The helper that reads TEST_DATABASE: whoever imports it depends on the backend. */
const BACKEND_MODULE = normalize('test/helpers/db.ts');
/** Durations of the last run, so the longest files start first and the run ends evenly. */
const TIMINGS = '.tmp/test-durations.json';
/** A file that runs longer than this is killed and counted as failed. */
const FILE_TIMEOUT_MS = 15 * 60_000;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** Relative imports of a TypeScript file, as repository paths (`.js` written, `.ts` on disk). */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const found = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)) {
    found.push(normalize(join(dirname(file), (m[1] ?? m[2]).replace(/\.js$/, '.ts'))));
  }
  return found;
}

/** Whether `file` reaches the backend module through imports inside test/. */
function backendDependent(file, memo = new Map(), seen = new Set()) {
  if (file === BACKEND_MODULE) return true;
  if (memo.has(file)) return memo.get(file);
  if (seen.has(file) || !file.startsWith(`test${'/'}`)) return false;
  seen.add(file);
  let result = false;
  try {
    result = importsOf(file).some((f) => backendDependent(f, memo, seen));
  } catch {
    result = false;
  }
  memo.set(file, result);
  return result;
}

const GENERATED = '// compiled from the .ts beside it by scripts/test.mjs (not in git)';

/** Compiles every .ts of src/ and test/ that changed into the .js beside it; removes .js left by deleted ones. */
function compileBeside() {
  const tree = [...walk('src'), ...walk('test').filter((f) => !f.includes(`${'/'}fixtures${'/'}`))];
  const sources = tree.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const stale = sources.filter((f) => {
    const js = `${f.slice(0, -3)}.js`;
    return !existsSync(js) || statSync(js).mtimeMs < statSync(f).mtimeMs;
  });
  if (stale.length) {
    buildSync({
      entryPoints: stale,
      outdir: '.',
      outbase: '.',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'inline',
      banner: { js: GENERATED },
      logLevel: 'warning',
    });
  }
  for (const js of tree.filter((f) => f.endsWith('.js'))) {
    if (!existsSync(`${js.slice(0, -3)}.ts`) && readFileSync(js, 'utf8').startsWith(GENERATED)) rmSync(js);
  }
}

const headOf = (file) => readFileSync(file, 'utf8').split('\n', 12).join('\n');

function tierOf(file) {
  return /^\/\/ test-tier: slow\b/m.test(headOf(file)) ? 'slow' : 'fast';
}

/** Runs on the first backend only, though it uses the database (`// test-backend: one`). */
const oneBackend = (file) => /^\/\/ test-backend: one\b/m.test(headOf(file));

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

async function chooseBackends() {
  if (process.env.TEST_BACKENDS) {
    return process.env.TEST_BACKENDS.split(',')
      .map((b) => b.trim())
      .filter(Boolean);
  }
  const [pg, redis] = await Promise.all([reachable(PG_URL, 5432), reachable(REDIS_URL, 6379)]);
  if (pg && redis) return ['sqlite', 'postgres'];
  if (process.env.CI === 'true') {
    process.stderr.write(`CI needs PostgreSQL (${PG_URL}: ${pg ? 'up' : 'DOWN'}) and Redis (${REDIS_URL}: ${redis ? 'up' : 'DOWN'})\n`);
    process.exit(1);
  }
  process.stdout.write('PostgreSQL or Redis not reachable: running on SQLite only\n');
  return ['sqlite'];
}

function readTimings() {
  try {
    return JSON.parse(readFileSync(TIMINGS, 'utf8'));
  } catch {
    return {};
  }
}

/** The counts node:test prints at the end of a file's run (spec reporter). */
function counts(output) {
  const read = (name) => Number(new RegExp(`^ℹ ${name} (\\d+)`, 'm').exec(output)?.[1] ?? 0);
  return { tests: read('tests'), pass: read('pass'), fail: read('fail'), skipped: read('skipped'), cancelled: read('cancelled') };
}

function runFile(job) {
  return new Promise((resolve) => {
    const started = Date.now();
    const entry = useTsx ? ['--import', 'tsx', job.file] : ['--enable-source-maps', `${job.file.slice(0, -3)}.js`];
    // The file itself, not `node --test file`: that would start a second process per file to run it.
    const child = spawn(process.execPath, ['--test-reporter=spec', ...entry], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // CRA_STRICT_WRITES: a write outside Database.transaction on SQLite throws (src/db/autocommit-writes.ts).
      env: { ...process.env, TEST_DATABASE: job.backend, FORCE_COLOR: '0', NO_COLOR: '1', CRA_STRICT_WRITES: '1' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n(killed after ${FILE_TIMEOUT_MS / 60_000} minutes)\n`;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ ...job, code: code ?? (signal ? 1 : 0), output, ms: Date.now() - started, ...counts(output) });
    });
  });
}

const args = process.argv.slice(2);
const tiers = args.includes('--all') ? ['fast', 'slow'] : args.includes('--slow') ? ['slow'] : ['fast'];
const filter = args.filter((a) => !a.startsWith('--'));
const files = walk('test')
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filter.length === 0 || filter.some((p) => f.includes(p)))
  .filter((f) => tiers.includes(tierOf(f)))
  .sort();
if (files.length === 0) {
  process.stderr.write(`no ${tiers.join('/')} test files match ${filter.join(' ')}\n`);
  process.exit(1);
}

const useTsx = process.env.TEST_LOADER === 'tsx';
if (!useTsx) compileBeside();
const backends = await chooseBackends();
const memo = new Map();
const jobs = files.flatMap((file) =>
  !backendDependent(file, memo)
    ? [{ file, backend: backends[0], label: 'any' }]
    : oneBackend(file)
      ? [{ file, backend: backends[0], label: backends[0] }]
      : backends.map((backend) => ({ file, backend, label: backend })),
);
const timings = readTimings();
const key = (job) => `${job.file} ${job.label}`;
jobs.sort((a, b) => (timings[key(b)] ?? 0) - (timings[key(a)] ?? 0));

const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, availableParallelism() * 2);
process.stdout.write(
  `${tiers.join('+')} tier: ${files.length} files, ${jobs.length} runs on ${backends.join('+')}, ${concurrency} at a time\n`,
);

/** Each file's whole output (spec reporter) of the tier's last run, one file per run. */
const OUTPUT_DIR = join('.tmp/test-output', tiers.join('+'));
rmSync(OUTPUT_DIR, { recursive: true, force: true });
mkdirSync(OUTPUT_DIR, { recursive: true });
const started = Date.now();
const results = [];
let next = 0;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
async function worker() {
  while (next < jobs.length) {
    const job = jobs[next++];
    const result = await runFile(job);
    results.push(result);
    const log = join(OUTPUT_DIR, `${job.file.replaceAll('/', '__')}.${job.label}.txt`);
    writeFileSync(log, result.output);
    const ok = result.code === 0 && result.fail === 0;
    const tally = [`${result.pass} passed`, result.skipped ? `${result.skipped} skipped` : '', result.fail ? `${result.fail} failed` : '']
      .filter(Boolean)
      .join(', ');
    process.stdout.write(
      `${ok ? '✔' : '✖'} [${results.length}/${jobs.length}] ${result.file} (${result.label}) ${tally} in ${seconds(result.ms)}\n`,
    );
    if (!ok) process.stdout.write(`${result.output.replace(/^/gm, '    ')}\n`);
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));

const failed = results.filter((r) => r.code !== 0 || r.fail > 0);
const sum = (name) => results.reduce((n, r) => n + r[name], 0);
mkdirSync(dirname(TIMINGS), { recursive: true });
const kept = Object.entries(timings).filter(([k]) => existsSync(k.split(' ')[0]));
writeFileSync(
  TIMINGS,
  `${JSON.stringify({ ...Object.fromEntries(kept), ...Object.fromEntries(results.map((r) => [key(r), r.ms])) }, null, 1)}\n`,
);
process.stdout.write(
  `\n${tiers.join('+')} tier on ${backends.join('+')}: ${sum('pass')} passed, ${sum('skipped')} skipped, ${sum('fail')} failed` +
    ` (${sum('tests')} tests in ${results.length} runs of ${files.length} files) in ${seconds(Date.now() - started)}\n`,
);
if (failed.length) {
  process.stdout.write(`failed: ${failed.map((r) => `${relative('.', r.file)} (${r.label})`).join(', ')}\n`);
  process.exit(1);
}
