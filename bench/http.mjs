// HTTP throughput benchmark, side by side in one run on this machine:
//   bare     a bare Fastify route returning a small JSON object (the framework's ceiling here)
//   products GET /api/v1/external/products (20 products, auth + rate limit + risk levels)
//   score    GET /api/v1/external/compliance-score
//   intake   POST /api/v1/external/incidents (every 201 durable: synchronous=FULL + group commit)
//   429      a key over its limit (auth + sliding window + error body)
//   products with Accept-Encoding gzip / br (the 20-product catalogue, ~5 KB), and a catalogue
//            of 10,000 products (~2 MB) uncompressed, gzip and br: what response compression costs
// Each target runs in its own process; autocannon drives it from this one.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { median, range } from './stats.mjs';
import { stealMeter } from './cpu-steal.mjs';
import { freePort } from './free-port.mjs';
import { seedCatalogue } from './seed-catalogue.mjs';
import { benchDatabase } from './sbom-ingest.mjs';

// 2 MB answers: a few connections keep the server busy; 50 would only queue compressions.
const BIG_CONNECTIONS = 4;
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');

async function waitUp(url, child) {
  for (let i = 0; i < 400; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited ${child.exitCode}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not start`);
}

export async function startProcess(args, env) {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUp(url, child);
  return {
    url,
    child,
    stop: () =>
      new Promise((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

export function admin(env, ...args) {
  return JSON.parse(execFileSync(process.execPath, [CLI, ...args, '--json'], { cwd: ROOT, env: { ...process.env, ...env } }).toString());
}

export function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 50, pipelining: 1, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

export function summarise(name, result) {
  const byStatus = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) byStatus[code] = count;
  return {
    name,
    requests_per_second: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    // Bytes on the wire per response, headers included: what compression saves.
    response_bytes: result.requests.total ? Math.round(result.throughput.total / result.requests.total) : null,
    errors: result.errors + result.timeouts,
    status_codes: byStatus,
  };
}

export { median, range } from './stats.mjs';
const ratio = (a, b) => Number((a / b).toFixed(2));

/**
 * One row per target from all its rounds: the median round with the range beside it. Each ratio
 * compares a round with the bare route's round just before it (interleaved, so both saw the
 * same neighbours); the row reports the median of those ratios and their range.
 */
function aggregate(name, roundRows, bareRows) {
  const rps = roundRows.map((r) => r.requests_per_second);
  const ratios = roundRows.map((r, i) => ratio(r.requests_per_second, bareRows[i].requests_per_second));
  const steal = roundRows.map((r) => r.cpu_steal_pct).filter((v) => v !== null);
  const statusCodes = {};
  for (const r of roundRows) for (const [code, n] of Object.entries(r.status_codes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    name,
    rounds: roundRows.length,
    requests_per_second: Math.round(median(rps)),
    requests_per_second_range: range(rps),
    ratio_to_bare: Number(median(ratios).toFixed(2)),
    // The bare route's own figure in the same rounds: a ratio means little without it.
    bare_requests_per_second: Math.round(median(bareRows.map((r) => r.requests_per_second))),
    ratio_to_bare_range: range(ratios),
    latency_p50_ms: median(roundRows.map((r) => r.latency_p50_ms)),
    latency_p99_ms: median(roundRows.map((r) => r.latency_p99_ms)),
    latency_p99_ms_range: range(roundRows.map((r) => r.latency_p99_ms)),
    response_bytes: median(roundRows.map((r) => r.response_bytes)),
    cpu_steal_pct: steal.length ? median(steal) : null,
    errors: roundRows.reduce((n, r) => n + r.errors, 0),
    status_codes: statusCodes,
    per_round: roundRows.map((r, i) => ({
      requests_per_second: r.requests_per_second,
      ratio_to_bare: ratios[i],
      latency_p99_ms: r.latency_p99_ms,
      cpu_steal_pct: r.cpu_steal_pct,
    })),
  };
}

/** The organisation the HTTP rows read: 20 products and keys to read, write and hit the limit. */
function seedOrganisation(env) {
  admin(env, 'org', 'create', 'bench');
  const key = (name, scopes) => admin(env, 'key', 'create', '--org', 'bench', '--name', name, '--scopes', scopes).secret;
  const keys = {
    read: key('read', 'products:read,compliance:read'),
    write: key('write', 'incidents:write'),
    limited: key('limited', 'products:read'),
  };
  for (let i = 1; i <= 20; i++) {
    admin(
      env,
      'product',
      'add',
      '--org',
      'bench',
      '--sku',
      `SKU-${i}`,
      '--name',
      `Product ${i}`,
      '--firmware-version',
      `1.${i}.0`,
      '--end-of-support',
      '2031-01-01T00:00:00Z',
    );
  }
  return keys;
}

/** A few signals so the score has something to compute. */
async function seedSignals(service, write) {
  for (let i = 0; i < 20; i++) {
    await fetch(`${service.url}/api/v1/external/incidents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': write },
      body: JSON.stringify({ description: `seed ${i}`, sku: `SKU-${(i % 20) + 1}` }),
    });
  }
}

/**
 * The same organisation on a scratch database of PostgreSQL (BENCH_PG_URL, the local server by
 * default), one instance without Redis: the reads side by side with SQLite's. Null, with a line
 * saying so, when PostgreSQL cannot be reached.
 */
async function postgresService(log) {
  let database;
  try {
    database = await benchDatabase(process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  } catch (error) {
    log(`  PostgreSQL rows skipped: ${error.message}`);
    return null;
  }
  const env = { DATABASE_URL: database.url };
  const { read, write } = seedOrganisation(env);
  const service = await startProcess([join(ROOT, 'dist/server.js')], { ...env, RATE_LIMIT_PER_MINUTE: '1000000000' });
  await seedSignals(service, write);
  return {
    read,
    service,
    async stop() {
      await service.stop();
      await database.drop();
    },
  };
}

/** Seeds a service and measures every target; returns rows with ratios to the bare route. */
export async function runHttpBench({ duration = 10, connections = 50, rounds = 2, only = null, log = console.log } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cra-bench-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'bench.db')}` };
  const { read, write, limited } = seedOrganisation(env);
  const big = admin(env, 'org', 'create', 'catalogue');
  const bigRead = admin(env, 'key', 'create', '--org', 'catalogue', '--name', 'read', '--scopes', 'products:read').secret;
  await seedCatalogue(env.DATABASE_URL, big.id, 10_000);

  const bare = await startProcess([join(ROOT, 'bench/bare-server.mjs')], {});
  const service = await startProcess([join(ROOT, 'dist/server.js')], { ...env, RATE_LIMIT_PER_MINUTE: '1000000000' });
  // The 429 path needs the real limit: a second instance on the same database, default 100/min.
  const limitedService = await startProcess([join(ROOT, 'dist/server.js')], env);
  for (let i = 0; i < 100; i++) await fetch(`${limitedService.url}/api/v1/external/products`, { headers: { 'x-cra-api-key': limited } });
  await seedSignals(service, write);
  const postgres = await postgresService(log);

  const targets = [
    ['bare Fastify route', { url: `${bare.url}/` }],
    ['GET products', { url: `${service.url}/api/v1/external/products`, headers: { 'x-cra-api-key': read } }],
    ['GET compliance-score', { url: `${service.url}/api/v1/external/compliance-score`, headers: { 'x-cra-api-key': read } }],
    [
      'POST incidents',
      {
        url: `${service.url}/api/v1/external/incidents`,
        method: 'POST',
        headers: { 'x-cra-api-key': write, 'content-type': 'application/json' },
        body: JSON.stringify({
          description: 'Bench signal: possible exploitation of the update service',
          title: 'bench',
          cve: 'CVE-2026-12345',
          sku: 'SKU-3',
        }),
      },
    ],
    ['429 path', { url: `${limitedService.url}/api/v1/external/products`, headers: { 'x-cra-api-key': limited } }],
    ...(postgres
      ? [
          [
            'GET products, PostgreSQL',
            { url: `${postgres.service.url}/api/v1/external/products`, headers: { 'x-cra-api-key': postgres.read } },
          ],
          [
            'GET compliance-score, PostgreSQL',
            { url: `${postgres.service.url}/api/v1/external/compliance-score`, headers: { 'x-cra-api-key': postgres.read } },
          ],
        ]
      : []),
    [
      'GET products, gzip',
      { url: `${service.url}/api/v1/external/products`, headers: { 'x-cra-api-key': read, 'accept-encoding': 'gzip' } },
    ],
    ['GET products, br', { url: `${service.url}/api/v1/external/products`, headers: { 'x-cra-api-key': read, 'accept-encoding': 'br' } }],
    [
      'GET products 10k, identity',
      { url: `${service.url}/api/v1/external/products`, headers: { 'x-cra-api-key': bigRead }, connections: BIG_CONNECTIONS },
    ],
    [
      'GET products 10k, gzip',
      {
        url: `${service.url}/api/v1/external/products`,
        headers: { 'x-cra-api-key': bigRead, 'accept-encoding': 'gzip' },
        connections: BIG_CONNECTIONS,
      },
    ],
    [
      'GET products 10k, br',
      {
        url: `${service.url}/api/v1/external/products`,
        headers: { 'x-cra-api-key': bigRead, 'accept-encoding': 'br' },
        connections: BIG_CONNECTIONS,
      },
    ],
  ];

  // Let the services finish their start-up work (SBOM schema compilation runs after listen)
  // before anything is measured, so it does not steal CPU from the first target.
  await new Promise((r) => setTimeout(r, 6000));
  // Throughput on a shared 2-core machine drifts: every target (the bare route included) is
  // measured in `rounds` interleaved rounds; each row reports the median round and the range.
  const measured = new Map();
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const [name, opts] of targets.filter(([name]) => name.startsWith('bare') || !only || only.some((o) => name.includes(o)))) {
        await cannon({ connections, ...opts, duration: 2 }); // warm-up (JIT, caches)
        const steal = stealMeter();
        const row = { ...summarise(name, await cannon({ connections, ...opts, duration })), cpu_steal_pct: steal.stop() };
        log(
          `  round ${round} ${name}: ${row.requests_per_second} req/s, p99 ${row.latency_p99_ms} ms, ${row.response_bytes} B/response, ${row.cpu_steal_pct ?? '?'} % of CPU time stolen`,
        );
        measured.set(name, [...(measured.get(name) ?? []), row]);
      }
    }
  } finally {
    await Promise.all([bare.stop(), service.stop(), limitedService.stop(), postgres?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
  const bareRows = measured.get(targets[0][0]);
  const rows = [...measured].map(([name, roundRows]) => aggregate(name, roundRows, bareRows));
  // PostgreSQL's rows against SQLite's same target, round by round.
  for (const row of rows) {
    const sqlite = measured.get(row.name.replace(/, PostgreSQL$/, ''));
    if (row.name.endsWith(', PostgreSQL') && sqlite) {
      const ratios = row.per_round.map((r, i) => ratio(r.requests_per_second, sqlite[i].requests_per_second));
      row.ratio_to_sqlite = Number(median(ratios).toFixed(2));
      row.ratio_to_sqlite_range = range(ratios);
    }
  }
  return rows;
}
