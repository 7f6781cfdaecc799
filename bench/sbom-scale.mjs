// SBOM rows beyond the ingest rate (bench/sbom-ingest.mjs): what an ingest does to everyone
// else, what a revision costs, and the portfolio questions. Each runs against the real server
// (dist/server.js) on a fresh database: SQLite by default, PostgreSQL when DATABASE_URL is a
// postgres:// URL (a scratch database is created on that server and dropped after).
//
//   npm run build && node bench/sbom-scale.mjs [--rows latency,storage,search,rss] [--runs 5]
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { benchComponents, benchDocument, benchDatabase, peakRssMiB, postSbom, prepare, ROOT, startServer } from './sbom-ingest.mjs';
import { median, percentile, round1 } from './stats.mjs';

const range = (values) => [Math.min(...values), Math.max(...values)];

async function upload(url, key, body) {
  const res = await postSbom(url, key, Buffer.isBuffer(body) ? body : Buffer.from(body));
  return { status: res.status, body: res.text, retryAfter: Number(res.headers['retry-after'] ?? 0) };
}

/** GET products in a loop (another process, 4 connections) while `during` runs; every latency in ms. */
export async function readLatencies(url, key, during) {
  const child = spawn(process.execPath, [join(ROOT, 'bench/read-loop.mjs'), url, key, '4'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  const ready = new Promise((resolve) =>
    child.stdout.on('data', (d) => {
      out += d;
      if (out.startsWith('ready\n')) resolve();
    }),
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await ready;
  // Reads run alone a moment first, so the loop is warm when the upload starts.
  await new Promise((r) => setTimeout(r, 300));
  try {
    await during();
  } finally {
    child.stdin.write('stop\n');
    await exited;
  }
  return JSON.parse(out.slice('ready\n'.length));
}

/** Read latency while a 100,000-component SBOM ingests: p99 and max per upload, median of `runs`. */
async function latencyRow({ url, key, readKey, runs }) {
  const components = benchComponents(100_000);
  const p99s = [];
  const maxes = [];
  for (let run = 0; run <= runs; run++) {
    const body = benchDocument(components);
    const latencies = await readLatencies(url, readKey, async () => {
      const res = await upload(url, key, body);
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.body.slice(0, 300)}`);
    });
    if (run === 0) continue; // warm-up
    p99s.push(round1(percentile(latencies, 99)));
    maxes.push(round1(Math.max(...latencies)));
  }
  return {
    name: 'GET products during a 100k ingest',
    p99_ms: median(p99s),
    p99_range: range(p99s),
    max_ms: median(maxes),
    max_range: range(maxes),
    runs,
    goal: 'p99 < 50 ms, max < 150 ms',
    met: median(p99s) < 50 && median(maxes) < 150,
  };
}

/** Database growth per revision of a 10,000-component SBOM where 1 % of the components changed. */
async function storageRow({ url, key, size, runs }) {
  const components = benchComponents(10_000);
  if ((await upload(url, key, benchDocument(components))).status !== 201) throw new Error('first upload failed');
  const growth = [];
  let previous = await size();
  for (let run = 1; run <= runs; run++) {
    // 100 components (1 %) get a new version in each revision.
    for (let i = 0; i < 100; i++) {
      const c = components[(run * 100 + i * 97) % components.length];
      c.version = `${c.version}.${run}`;
      c.purl = `${c.purl.split('@')[0]}@${c.version}?type=jar`;
      c['bom-ref'] = c.purl;
    }
    const res = await upload(url, key, benchDocument(components));
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.body.slice(0, 300)}`);
    const now = await size();
    growth.push(Math.round((now - previous) / 1024));
    previous = now;
  }
  return {
    name: 'growth per 1 %-changed revision of a 10k SBOM',
    kib: median(growth),
    kib_range: range(growth),
    runs,
    goal: '≤ 250 kB',
    met: median(growth) * 1024 <= 250_000,
  };
}

/** Component search with 1,000,000 stored references: 100 revisions of 10,000 components. */
async function searchRow({ url, key, databaseUrl, orgSlug, runs }) {
  const components = benchComponents(10_000);
  for (let revision = 0; revision < 100; revision++) {
    for (let i = 0; i < 100; i++) {
      const c = components[(revision * 100 + i) % components.length];
      c.version = `${c.version}.${revision}`;
      c.purl = `${c.purl.split('@')[0]}@${c.version}?type=jar`;
      c['bom-ref'] = c.purl;
    }
    const res = await upload(url, key, benchDocument(components));
    if (res.status !== 201) throw new Error(`seeding: ${res.status} ${res.body.slice(0, 300)}`);
  }
  const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
  const [{ openDatabase }, { createServices }] = await Promise.all([dist('db/index.js'), dist('services.js')]);
  const database = openDatabase(databaseUrl);
  try {
    const services = createServices({ database });
    const stable = components[5000];
    const times = { purl: [], name: [] };
    let hits = 0;
    for (let run = 0; run <= runs; run++) {
      for (const [kind, match] of [
        ['purl', { purl: stable.purl }],
        ['name', { name: stable.name }],
      ]) {
        const started = performance.now();
        const found = await services.portfolio.searchComponents(orgSlug, match);
        const elapsed = performance.now() - started;
        if (found.length === 0) throw new Error(`search by ${kind} found nothing`);
        hits = Math.max(hits, found.length);
        if (run > 0) times[kind].push(round1(elapsed));
      }
    }
    const all = [...times.purl, ...times.name];
    return {
      name: 'component search, 1M references',
      purl_ms: round1(median(times.purl)),
      purl_range: range(times.purl),
      name_ms: round1(median(times.name)),
      name_range: range(times.name),
      hits,
      runs,
      goal: '< 50 ms',
      met: median(all) < 50,
    };
  } finally {
    await database.close();
  }
}

/** Peak RSS of the server with 8 concurrent ~49.5 MiB uploads; refused ones retry after Retry-After. */
async function rssRow({ url, key, pid }) {
  // ~138,000 components make a 49.5 MiB document.
  const components = benchComponents(138_000);
  const bodies = Array.from({ length: 8 }, () => Buffer.from(benchDocument(components)));
  const mib = Math.round((bodies[0].length / 2 ** 20) * 10) / 10;
  let refused = 0;
  const started = performance.now();
  await Promise.all(
    bodies.map(async (body) => {
      for (;;) {
        const res = await upload(url, key, body);
        if (res.status === 201) return;
        if (res.status !== 503) throw new Error(`upload: ${res.status} ${res.body.slice(0, 300)}`);
        refused++;
        await new Promise((r) => setTimeout(r, res.retryAfter * 1000));
      }
    }),
  );
  const peak = peakRssMiB(pid);
  return {
    name: `server peak RSS, 8 concurrent ${mib} MiB uploads`,
    document_mib: mib,
    peak_rss_mib: peak,
    refused_503: refused,
    all_stored_s: round1((performance.now() - started) / 1000),
    goal: '< 1 GiB',
    met: peak !== null && peak < 1024,
  };
}

/** Runs the chosen rows, each on a fresh database and server; resolves with one result per row. */
export async function runSbomScaleBench({
  rows = ['latency', 'storage', 'search', 'rss'],
  runs = 5,
  databaseUrl = process.env.DATABASE_URL,
  log = console.log,
} = {}) {
  const results = [];
  for (const row of rows) {
    const db = await benchDatabase(databaseUrl);
    try {
      const { key, readKey } = await prepare(db.url);
      const { child, url } = await startServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '100000' });
      try {
        let result;
        if (row === 'latency') result = await latencyRow({ url, key, readKey, runs });
        else if (row === 'storage') result = await storageRow({ url, key, size: db.size, runs: runs * 2 });
        else if (row === 'search') result = await searchRow({ url, key, databaseUrl: db.url, orgSlug: 'bench', runs: runs * 4 });
        else if (row === 'rss') result = await rssRow({ url, key, pid: child.pid });
        else throw new Error(`unknown row ${row}`);
        result.backend = db.backend;
        results.push(result);
        log(`${db.backend}: ${JSON.stringify(result)}`);
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    } finally {
      await db.drop();
    }
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  runSbomScaleBench({ rows: arg('rows')?.split(','), runs: arg('runs') ? Number(arg('runs')) : undefined }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
