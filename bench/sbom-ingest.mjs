// SBOM ingest benchmark: CycloneDX 1.6 documents of 10,000 and 100,000 components POSTed to the
// real server (dist/server.js on a temporary SQLite database, or a scratch PostgreSQL database
// when DATABASE_URL is postgres://…), end to end: HTTP, parsing, schema validation, storage with
// a durable commit.
//
//   npm run build && node bench/sbom-ingest.mjs [--runs 5] [--sizes 10000,100000]
//
// Reports per size the median request time, components per second, and the server's peak RSS
// (VmHWM from /proc/<pid>/status, Linux only).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stealMeter } from './cpu-steal.mjs';
import { freePort } from './free-port.mjs';
import { median } from './stats.mjs';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LICENSES = ['MIT', 'Apache-2.0', 'BSD-3-Clause', 'ISC', 'GPL-2.0-only', 'MPL-2.0'];
const TYPES = ['library', 'library', 'library', 'framework', 'application'];

/** Realistic components: name, group, version, purl, type, licences, bom-ref, a hash. */
export function benchComponents(count) {
  return Array.from({ length: count }, (_, i) => {
    const group = `org.example.g${i % 97}`;
    const name = `component-${i}`;
    const version = `${i % 9}.${i % 17}.${i % 23}`;
    const purl = `pkg:maven/${group}/${name}@${version}?type=jar`;
    return {
      type: TYPES[i % TYPES.length],
      'bom-ref': purl,
      group,
      name,
      version,
      purl,
      licenses: [{ license: { id: LICENSES[i % LICENSES.length] } }],
      hashes: [{ alg: 'SHA-256', content: i.toString(16).padStart(8, '0').repeat(8) }],
    };
  });
}

/** One CycloneDX 1.6 document; a new serialNumber makes it a new document (a new revision). */
export function benchDocument(components) {
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: new Date().toISOString(),
      component: { type: 'firmware', name: 'bench-gateway', version: '1.0.0', 'bom-ref': 'bench-gateway' },
    },
    components,
  });
}

/**
 * A fresh database for one benchmark: a temporary SQLite file, or a scratch database on the
 * PostgreSQL server of `serverUrl` (postgres://…). `size()` is its size in bytes now.
 */
export async function benchDatabase(serverUrl) {
  if (serverUrl && /^postgres(ql)?:\/\//.test(serverUrl)) {
    const { default: pg } = await import('pg');
    const name = `cra_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const admin = async (sql) => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        return await client.query(sql);
      } finally {
        await client.end();
      }
    };
    await admin(`create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      backend: 'postgres',
      async size() {
        const client = new pg.Client({ connectionString: url.toString() });
        await client.connect();
        try {
          await client.query('checkpoint').catch(() => {});
          return Number((await client.query('select pg_database_size(current_database()) as n')).rows[0].n);
        } finally {
          await client.end();
        }
      },
      async query(sql, params) {
        const client = new pg.Client({ connectionString: url.toString() });
        await client.connect();
        try {
          return (await client.query(sql, params)).rows[0];
        } finally {
          await client.end();
        }
      },
      drop: () => admin(`drop database if exists ${name} with (force)`),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'cra-bench-sbom-'));
  const file = join(dir, 'bench.db');
  return {
    url: `sqlite:${file}`,
    backend: 'sqlite',
    async size() {
      // Pages in use as a reader sees them (database file and WAL), free pages excluded.
      const { default: SQLite } = await import('better-sqlite3');
      const db = new SQLite(file, { readonly: true });
      try {
        const pages = db.pragma('page_count', { simple: true }) - db.pragma('freelist_count', { simple: true });
        return pages * db.pragma('page_size', { simple: true });
      } finally {
        db.close();
      }
    },
    async query(sql, params) {
      const { default: SQLite } = await import('better-sqlite3');
      const db = new SQLite(file, { readonly: true });
      try {
        return db.prepare(sql.replace(/\$\d+/g, '?')).get(...params);
      } finally {
        db.close();
      }
    },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An organisation `bench` with product BENCH-1; a write key and a read key. */
export async function prepare(databaseUrl) {
  const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
  const [{ openDatabase, migrateToLatest }, { createServices }] = await Promise.all([dist('db/index.js'), dist('services.js')]);
  const database = openDatabase(databaseUrl);
  try {
    await migrateToLatest(database);
    const { orgs, keys, products } = createServices({ database });
    await orgs.createOrg({ slug: 'bench' });
    const { secret } = await keys.createKey({ org: 'bench', name: 'bench', scopes: ['products:write'] });
    const { secret: readKey } = await keys.createKey({ org: 'bench', name: 'read', scopes: ['products:read'] });
    await products.addProduct('bench', 'BENCH-1', { name: 'Bench gateway' });
    return { key: secret, readKey };
  } finally {
    await database.close();
  }
}

/**
 * POSTs the document with node:http, the body a Buffer written to the socket as it is: the
 * lightest client there is, so that the time measured is the server's (fetch spent 50–200 ms
 * of this machine's two cores on its own side of a 36 MiB body).
 */
export function postSbom(url, key, body, sku = 'BENCH-1') {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}/api/v1/external/products/${encodeURIComponent(sku)}/sbom`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-cra-api-key': key } },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

export function peakRssMiB(pid) {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * A started server's small-lane parse threads warm up in the background for a few seconds
 * (SMALL_LANE_WARM_UP in sbom-reader.ts); uploads measured meanwhile would wait for a warm-up
 * step now and then. A service that has run for a while has none left: wait them out.
 */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 8000));

export async function startServer(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ') ?? []), join(ROOT, 'dist/server.js')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error('server did not start');
}

/** Runs the benchmark; resolves with one result per size. */
export async function runSbomIngestBench({
  sizes = [10_000, 100_000],
  runs = 5,
  databaseUrl = process.env.DATABASE_URL,
  log = console.log,
} = {}) {
  const db = await benchDatabase(databaseUrl);
  const { key } = await prepare(db.url);
  const { child, url } = await startServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '100000' });
  await settle();
  const results = [];
  try {
    for (const size of sizes) {
      const components = benchComponents(size);
      const times = [];
      let bytes = 0;
      const steal = stealMeter();
      // The first upload warms up (schema compilation, JIT) and is not counted.
      for (let run = 0; run <= runs; run++) {
        const body = Buffer.from(benchDocument(components));
        bytes = body.length;
        const started = performance.now();
        const res = await postSbom(url, key, body);
        const elapsed = performance.now() - started;
        const answer = JSON.parse(res.text);
        if (res.status !== 201 || answer.components !== size)
          throw new Error(`unexpected answer ${res.status}: ${JSON.stringify(answer).slice(0, 500)}`);
        if (run > 0) times.push(elapsed);
      }
      const ms = median(times);
      const result = {
        components: size,
        document_mib: +(bytes / 1024 / 1024).toFixed(1),
        runs,
        backend: db.backend,
        median_ms: Math.round(ms),
        min_ms: Math.round(Math.min(...times)),
        max_ms: Math.round(Math.max(...times)),
        components_per_second: Math.round(size / (ms / 1000)),
        server_peak_rss_mib: peakRssMiB(child.pid),
        cpu_steal_pct: steal.stop(),
      };
      results.push(result);
      log(
        `sbom ingest (${db.backend}) ${size.toLocaleString('en')} components (${result.document_mib} MiB): median ${result.median_ms} ms (${result.min_ms}–${result.max_ms}), ` +
          `${result.components_per_second.toLocaleString('en')} components/s, server peak RSS ${result.server_peak_rss_mib ?? '?'} MiB, ${result.cpu_steal_pct ?? '?'} % of CPU time stolen`,
      );
    }
    if (sizes.includes(10_000)) results.push(await storedDocumentRow(db, url, key, log));
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await db.drop();
  }
  return results;
}

/** Components as a build writes them: those of benchComponents with random SHA-256 hashes (which barely compress). */
export function realisticComponents(count) {
  return benchComponents(count).map((c) => ({ ...c, hashes: [{ alg: 'SHA-256', content: randomBytes(32).toString('hex') }] }));
}

/**
 * The row "stored document, 10,000 components: ≤ 15 % of its bytes as received": one document
 * of 10,000 components with random hashes pushed, then its sbom_documents row read back.
 * A build without documents as received (before migration 019) gives null.
 */
async function storedDocumentRow(db, url, key, log) {
  const body = Buffer.from(benchDocument(realisticComponents(10_000)));
  const res = await postSbom(url, key, body);
  if (res.status !== 201) throw new Error(`unexpected answer ${res.status}: ${res.text.slice(0, 500)}`);
  const { digest } = JSON.parse(res.text);
  const row = await db.query('select size, stored_size from sbom_documents where digest = $1', [digest]).catch(() => null);
  const result = {
    stored_document: '10,000 components, random SHA-256 hashes',
    backend: db.backend,
    document_bytes: body.length,
    stored_bytes: row ? Number(row.stored_size) : null,
    stored_pct: row ? +((100 * Number(row.stored_size)) / body.length).toFixed(1) : null,
  };
  log(
    `stored document (${db.backend}), 10,000 components: ${result.stored_bytes ?? '?'} of ${body.length} bytes (${result.stored_pct ?? 'not kept by this build'} %)`,
  );
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const sizes = arg('sizes')?.split(',').map(Number) ?? undefined;
  const runs = arg('runs') ? Number(arg('runs')) : undefined;
  runSbomIngestBench({ sizes, runs }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
