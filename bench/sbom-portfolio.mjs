// SBOM ingest of new and of known components on a portfolio that already holds 1,000,000
// component references (docs/benchmarks.md, "SBOM rows on a portfolio"): what a product's first
// SBOM costs, as against its next revision, once an organisation has a hundred products.
//
// The portfolio: 100 products with an SBOM of 10,000 components each, 1,000,000 references over
// 100,000 distinct components (product p lists components p × 1,000 to p × 1,000 + 9,999 of the
// organisation's 100,000, as the vulnerability rows do), ingested through the ingest service
// before the server starts; with --distinct 1000000 no two products share a component (every
// stored index as large as 1,000,000 references can make it).
// Components look like npm and Maven packages as their SBOM tools write them (scoped and plain
// names from a random syllable generator, so that new names fall all over the stored ones, not
// after them; versions, purls, bom-refs, licences, hashes), in the tools' order (by name).
//
// Then, with the real server (dist/server.js) and four clients reading GET /products in a loop
// from another process the whole time:
// - new components: a new product's first SBOM of 10,000 (and of 100,000) components no revision
//   holds, POSTed; the request's time from the first byte to the 201;
// - known components: the same document again with a new serialNumber (a new revision whose
//   components are all stored), as a product's daily build is;
// - bytes per new component: the growth over each 100,000-component first SBOM of the tables
//   the ingest writes before its 201 (components and sbom_members, with their indexes), and of
//   those the matcher writes after it (component_packages, package_versions), each read once
//   the matcher has read the new components (SQLite's dbstat, PostgreSQL's
//   pg_total_relation_size);
// - GET /products p99 and max during each upload: for new components, until the matcher has
//   read them (its work after the 201 is what such an upload costs everyone else too).
//
//   npm run build && node bench/sbom-portfolio.mjs [--runs 5] [--seed-products 100] [--distinct 100000]
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/sbom-portfolio.mjs
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { postgresCpuMeter, processCpuMeter, stealMeter } from './cpu-steal.mjs';
import { ingestReference } from './ingest-reference.mjs';
import { median, percentile, range, round1 } from './stats.mjs';
import { benchDatabase, benchDocument, peakRssMiB, postSbom, ROOT, settle, startServer } from './sbom-ingest.mjs';
import { readLatencies } from './sbom-scale.mjs';

const ORG = 'bench';
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

/** A small deterministic generator (mulberry32): the same seed gives the same portfolio. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ab', 'ac', 'al', 'an', 'ar', 'ba', 'be', 'bo', 'ca', 'ce', 'co', 'da', 'de', 'di', 'el', 'en', 'er', 'fa', 'fi', 'fo'];
const SYLLABLES2 = ['ga', 'ge', 'gi', 'ha', 'he', 'hi', 'io', 'ja', 'ka', 'ke', 'la', 'le', 'li', 'lo', 'ma', 'me', 'mi', 'mo', 'na', 'ne'];
const SYLLABLES3 = ['ni', 'no', 'on', 'or', 'pa', 'pe', 'pi', 'po', 'ra', 're', 'ri', 'ro', 'sa', 'se', 'si', 'so', 'ta', 'te', 'ti', 'to'];
const ALL = [...SYLLABLES, ...SYLLABLES2, ...SYLLABLES3];
const LICENSES = ['MIT', 'MIT', 'MIT', 'Apache-2.0', 'ISC', 'BSD-3-Clause', 'BSD-2-Clause', 'MPL-2.0'];

/**
 * `count` components with names no other call makes (the call's `tag` is in each name), sorted
 * by name as SBOM tools write them. Three in four are npm packages (bom-ref "name@version", as
 * cyclonedx-npm writes it), one in four Maven artifacts (bom-ref = purl, as the Maven plugin).
 */
export function portfolioComponents(count, tag, seed = 1) {
  const random = generator(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const word = (n) => Array.from({ length: n }, () => pick(ALL)).join('');
  const out = [];
  for (let i = 0; i < count; i++) {
    const version = `${Math.floor(random() * 12)}.${Math.floor(random() * 30)}.${Math.floor(random() * 40)}`;
    const base = `${word(2 + Math.floor(random() * 3))}-${word(1 + Math.floor(random() * 2))}${tag}x${i.toString(36)}`;
    const license = { license: { id: pick(LICENSES) } };
    const hash = {
      alg: 'SHA-256',
      content: (Math.floor(random() * 2 ** 32).toString(16) + i.toString(16)).padStart(16, '0').repeat(4).slice(0, 64),
    };
    if (random() < 0.75) {
      const scope = random() < 0.3 ? `@${word(2)}` : null;
      const full = scope ? `${scope}/${base}` : base;
      const purl = `pkg:npm/${scope ? `${encodeURIComponent(scope)}/` : ''}${base}@${version}`;
      out.push({
        type: 'library',
        name: base,
        ...(scope ? { group: scope } : {}),
        version,
        'bom-ref': `${full}@${version}`,
        purl,
        licenses: [license],
        hashes: [hash],
      });
    } else {
      const group = `org.${word(2)}.${word(1)}`;
      const purl = `pkg:maven/${group}/${base}@${version}?type=jar`;
      out.push({ type: 'library', 'bom-ref': purl, group, name: base, version, purl, licenses: [license], hashes: [hash] });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The organisation, its `products` seeded products with their first SBOMs, the keys; the bench's products. */
async function seed(databaseUrl, products, distinct, newProducts, log) {
  const [{ openDatabase, migrateToLatest }, { createServices }] = await Promise.all([dist('db/index.js'), dist('services.js')]);
  const database = openDatabase(databaseUrl);
  const services = createServices({ database });
  try {
    await migrateToLatest(database);
    const org = await services.orgs.createOrg({ slug: ORG, name: 'Bench Devices' });
    const { secret: writeKey } = await services.keys.createKey({ org: ORG, name: 'pipeline', scopes: ['products:write'] });
    const { secret: readKey } = await services.keys.createKey({ org: ORG, name: 'erp', scopes: ['products:read'] });
    // One advisory held, so that the matcher reads every stored component (as on a server with
    // feeds: with none, it has nothing to match against and reads nothing).
    const dir = mkdtempSync(join(tmpdir(), 'cra-bench-osv-'));
    try {
      const record = {
        schema_version: '1.6.0',
        id: 'BENCH-1',
        modified: '2026-11-01T00:00:00Z',
        aliases: ['CVE-2026-100001'],
        summary: 'Out-of-bounds read in a package no portfolio component is',
        affected: [
          {
            package: { ecosystem: 'npm', name: 'bench-no-such-package' },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }],
          },
        ],
      };
      writeFileSync(join(dir, 'BENCH-1.json'), JSON.stringify(record));
      await services.vulns.importFeeds([join(dir, 'BENCH-1.json')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const started = performance.now();
    const shared = distinct < products * 10_000 ? portfolioComponents(distinct, 'p', 1000) : null;
    for (let p = 0; p < products; p++) {
      const sku = `PRD-${String(p).padStart(3, '0')}`;
      await services.products.addProduct(ORG, sku, { name: `Product ${p}`, firmwareVersion: '1.0.0' });
      const components = shared
        ? Array.from({ length: 10_000 }, (_, i) => shared[(p * 1_000 + i) % distinct])
        : portfolioComponents(10_000, `p${p}`, 1000 + p);
      const bytes = Buffer.from(benchDocument(components));
      await services.sbom.ingestSbom({ orgId: org.id, sku, bytes, actor: 'cli' });
      if ((p + 1) % 20 === 0) log(`  seeded ${p + 1} products (${Math.round((performance.now() - started) / 1000)} s)`);
    }
    for (let i = 0; i < newProducts; i++) await services.products.addProduct(ORG, `NEW-${i}`, { name: `New product ${i}` });
    await services.vulns.idle();
    return { writeKey, readKey, seeding_s: round1((performance.now() - started) / 1000) };
  } finally {
    await services.close();
    await database.close();
  }
}

/** GET products in a loop (bench/read-loop.mjs, another process, 4 connections) while `during` runs. */
async function whileReading(url, key, during) {
  let value;
  const latencies = await readLatencies(url, key, async () => {
    value = await during();
  });
  return { value, p99: round1(percentile(latencies, 99)), max: round1(Math.max(...latencies)) };
}

async function timedUpload(url, key, sku, body, size) {
  const started = performance.now();
  const res = await postSbom(url, key, body, sku);
  const ms = performance.now() - started;
  const answer = JSON.parse(res.text);
  if (res.status !== 201 || answer.components !== size) throw new Error(`upload: ${res.status} ${res.text.slice(0, 300)}`);
  return ms;
}

/**
 * The upload's time to its 201; the reads go on until the matcher has read its new components
 * (its work after the 201 is part of what the upload costs everyone else).
 */
async function uploadThenMatched(url, key, sku, body, size, databaseUrl) {
  return (await costedUploadThenMatched(url, key, sku, body, size, databaseUrl, [])).ms;
}

/** uploadThenMatched, with what each of `meters` (cpu-steal.mjs) counted from its first byte to the 201. */
async function costedUploadThenMatched(url, key, sku, body, size, databaseUrl, meters) {
  const above = await largestComponentId(databaseUrl);
  const started = meters.map((start) => start());
  const ms = await timedUpload(url, key, sku, body, size);
  const cpu = started.map((meter) => meter.stop());
  await matched(databaseUrl, above);
  return { ms, cpu };
}

/**
 * The CPU an upload took, median and range of the runs: the server's threads (its parse and
 * SQLite writer threads included), and PostgreSQL's processes (null on SQLite); and the page
 * faults the server took meanwhile (memory it touched for the first time, or again after giving
 * it back). Ten thousand components in a tenth of a second on the clock need as much CPU as they
 * take, on two cores that the readers share.
 */
function cpuColumns(samples) {
  const of = (pick) => {
    const values = samples.map(pick).filter((v) => v !== null && v !== undefined);
    return values.length > 0 ? [Math.round(median(values)), range(values)] : [null, null];
  };
  const [server, serverRange] = of((s) => s.server?.ms);
  const [database, databaseRange] = of((s) => s.database?.ms);
  const [faults, faultsRange] = of((s) => s.server?.faults);
  return {
    server_cpu_ms: server,
    server_cpu_range: serverRange,
    database_cpu_ms: database,
    database_cpu_range: databaseRange,
    server_page_faults: faults,
    server_page_faults_range: faultsRange,
  };
}

/**
 * The reference's time (ingest-reference.mjs: the same document's JSON.parse and a plain insert
 * of its rows, measured in the same round) and the upload's ratio to it: the median of the
 * rounds' ratios with their range. A round's ratio compares two figures taken a moment apart on
 * the same machine, so it holds where the machine's speed changes from one run to the next.
 */
function referenceColumns(samples) {
  const reference = samples.map((s) => s.reference).filter((v) => v !== undefined);
  if (reference.length === 0) return {};
  const ratios = samples.map((s) => s.ms / s.reference);
  return {
    reference_ms: Math.round(median(reference)),
    reference_range: range(reference).map(Math.round),
    ratio_to_reference: Math.round(median(ratios) * 100) / 100,
    ratio_range: range(ratios).map((r) => Math.round(r * 100) / 100),
  };
}

/** Rows of medians with ranges from the runs' samples. */
function row(name, size, samples, extra = {}) {
  const ms = samples.map((s) => s.ms);
  const p99 = samples.map((s) => s.p99);
  const max = samples.map((s) => s.max);
  return {
    name,
    components: size,
    runs: samples.length,
    median_ms: Math.round(median(ms)),
    ms_range: range(ms).map(Math.round),
    components_per_second: Math.round(size / (median(ms) / 1000)),
    ...referenceColumns(samples),
    get_products_p99_ms: median(p99),
    get_products_p99_range: range(p99),
    get_products_max_ms: median(max),
    ...extra,
  };
}

const STORE_TABLES = ['components', 'sbom_members'];
const MATCHING_TABLES = ['component_packages', 'package_versions'];

/** Bytes of the tables the ingest writes and of those the matcher writes, indexes included. */
async function tableBytes(databaseUrl) {
  const [{ openDatabase }, { sql }] = await Promise.all([dist('db/index.js'), import('kysely')]);
  const database = openDatabase(databaseUrl);
  try {
    const { rows } =
      database.dialect === 'postgres'
        ? await sql`select relname as name, pg_total_relation_size(oid) as bytes from pg_class
            where relkind = 'r' and relname in (${sql.join([...STORE_TABLES, ...MATCHING_TABLES])})`.execute(database.db)
        : await sql`select s.tbl_name as name, sum(d.pgsize) as bytes from dbstat as d join sqlite_schema as s on s.name = d.name
            group by s.tbl_name`.execute(database.db);
    const of = (names) => rows.filter((r) => names.includes(r.name)).reduce((sum, r) => sum + Number(r.bytes), 0);
    return { store: of(STORE_TABLES), matching: of(MATCHING_TABLES) };
  } finally {
    await database.close();
  }
}

/** The largest component id stored. */
async function largestComponentId(databaseUrl) {
  const { openDatabase } = await dist('db/index.js');
  const database = openDatabase(databaseUrl);
  try {
    const row = await database.db
      .selectFrom('components')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  } finally {
    await database.close();
  }
}

/** Waits until the matcher has read every stored component above `above` (a component_packages row each). */
async function matched(databaseUrl, above = 0) {
  const [{ openDatabase }, { sql }] = await Promise.all([dist('db/index.js'), import('kysely')]);
  const database = openDatabase(databaseUrl);
  try {
    for (let i = 0; i < 600; i++) {
      // Only the components above `above` (a range of the primary key): counting them all each
      // time would load the database the reads are measured on.
      const { rows } = await sql`select count(*) as n from components as c left join component_packages as cp on cp.component_id = c.id
        where c.id > ${above} and cp.component_id is null`.execute(database.db);
      if (Number(rows[0].n) <= 0) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error('the matcher did not read the new components within 150 s');
  } finally {
    await database.close();
  }
}

export async function runSbomPortfolioBench({
  runs = 5,
  seedProducts = 100,
  distinct = 100_000,
  databaseUrl = process.env.DATABASE_URL,
  log = console.log,
} = {}) {
  const db = await benchDatabase(databaseUrl);
  distinct = Math.min(distinct, seedProducts * 10_000);
  try {
    log(
      `sbom portfolio (${db.backend}): seeding ${seedProducts} products of 10,000 components over ${distinct.toLocaleString('en')} distinct…`,
    );
    // Products the runs upload to: per 10,000-component run a new one and a quiet one, per
    // 100,000-component run one, each with its warm-up run.
    const newProducts = 2 * (runs + 1) + Math.max(1, Math.ceil(runs / 2)) + 1;
    const seeded = await seed(db.url, seedProducts, distinct, newProducts, log);
    log(`  seeded ${(seedProducts * 10_000).toLocaleString('en')} references in ${seeded.seeding_s} s`);
    // The reference's table holds as many rows as the portfolio's components table: the same
    // distinct components, as documents of 10,000.
    const prefill = [];
    if (distinct < seedProducts * 10_000) {
      const shared = portfolioComponents(distinct, 'p', 1000);
      for (let i = 0; i < distinct; i += 10_000) prefill.push(Buffer.from(benchDocument(shared.slice(i, i + 10_000))));
    } else {
      for (let p = 0; p < seedProducts; p++) prefill.push(Buffer.from(benchDocument(portfolioComponents(10_000, `p${p}`, 1000 + p))));
    }
    const reference = await ingestReference(db.backend, db.url, prefill);
    prefill.length = 0;
    const { child, url } = await startServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '100000' });
    const results = [];
    const steal = stealMeter();
    try {
      await settle();
      let product = 0;
      const rounds = { new10k: [], known10k: [], quiet10k: [], new100k: [], known100k: [] };
      const bytes = { store: [], matching: [] };
      // Run 0 warms up (schema compilation, JIT, the young generation) and is not counted.
      for (let run = 0; run <= runs; run++) {
        const sku = `NEW-${product++}`;
        const components = portfolioComponents(10_000, `n${run}`, 50_000 + run);
        const body = Buffer.from(benchDocument(components));
        const fresh = await whileReading(url, seeded.readKey, () => uploadThenMatched(url, seeded.writeKey, sku, body, 10_000, db.url));
        // The reference on the same document, with the same readers reading.
        const freshReference = await whileReading(url, seeded.readKey, () => reference.measure(body));
        const known = await whileReading(url, seeded.readKey, () =>
          timedUpload(url, seeded.writeKey, sku, Buffer.from(benchDocument(components)), 10_000),
        );
        // The same kind of upload with nothing else running: what the readers' share of two cores
        // costs it, and the CPU it takes (the server's threads; PostgreSQL's processes).
        const quietBody = Buffer.from(benchDocument(portfolioComponents(10_000, `q${run}`, 70_000 + run)));
        const quiet = await costedUploadThenMatched(url, seeded.writeKey, `NEW-${product++}`, quietBody, 10_000, db.url, [
          () => processCpuMeter(child.pid),
          ...(db.backend === 'postgres' ? [postgresCpuMeter] : []),
        ]);
        const quietReference = await reference.measure(quietBody);
        if (run === 0) continue;
        rounds.new10k.push({ ms: fresh.value, p99: fresh.p99, max: fresh.max, reference: freshReference.value });
        rounds.known10k.push({ ms: known.value, p99: known.p99, max: known.max });
        rounds.quiet10k.push({
          ms: quiet.ms,
          p99: null,
          max: null,
          reference: quietReference,
          server: quiet.cpu[0],
          database: quiet.cpu[1] ?? null,
        });
      }
      const bigRuns = Math.max(1, Math.ceil(runs / 2));
      for (let run = 0; run <= bigRuns; run++) {
        const sku = `NEW-${product++}`;
        const components = portfolioComponents(100_000, `m${run}`, 90_000 + run);
        await matched(db.url);
        const before = await tableBytes(db.url);
        const body = Buffer.from(benchDocument(components));
        const fresh = await whileReading(url, seeded.readKey, () => uploadThenMatched(url, seeded.writeKey, sku, body, 100_000, db.url));
        const after = await tableBytes(db.url);
        const freshReference = await whileReading(url, seeded.readKey, () => reference.measure(body));
        const known = await whileReading(url, seeded.readKey, () =>
          timedUpload(url, seeded.writeKey, sku, Buffer.from(benchDocument(components)), 100_000),
        );
        if (run === 0) continue;
        rounds.new100k.push({ ms: fresh.value, p99: fresh.p99, max: fresh.max, reference: freshReference.value });
        rounds.known100k.push({ ms: known.value, p99: known.p99, max: known.max });
        bytes.store.push(Math.round((after.store - before.store) / 100_000));
        bytes.matching.push(Math.round((after.matching - before.matching) / 100_000));
      }
      const storage = {
        bytes_per_new_component: median(bytes.store),
        bytes_range: range(bytes.store),
        matcher_bytes_per_new_component: median(bytes.matching),
        matcher_bytes_range: range(bytes.matching),
      };
      results.push(
        row('new components, 10,000 (a product’s first SBOM)', 10_000, rounds.new10k, {
          goal: '≤ 2 × the reference (same run, same readers); GET p99 < 50 ms',
        }),
        row('known components, 10,000 (its next revision)', 10_000, rounds.known10k, { goal: '≥ 100,000 components/s; GET p99 < 50 ms' }),
        {
          ...row('new components, 10,000, nothing else running (an easier case: no reads)', 10_000, rounds.quiet10k),
          get_products_p99_ms: null,
          get_products_p99_range: null,
          get_products_max_ms: null,
          ...cpuColumns(rounds.quiet10k),
          goal: 'none (the row above is the goal’s; the ratio is to the reference with no readers either)',
        },
        row('new components, 100,000 (a product’s first SBOM)', 100_000, rounds.new100k, {
          goal: '≤ 2 × the reference (same run, same readers); GET p99 < 50 ms; ≤ 200 bytes per new component',
          ...storage,
        }),
        row('known components, 100,000 (its next revision)', 100_000, rounds.known100k, { goal: '< 1.5 s; GET p99 < 50 ms' }),
      );
      for (const r of results) {
        r.backend = db.backend;
        r.seeded_references = seedProducts * 10_000;
        r.seeded_distinct = distinct;
        r.server_peak_rss_mib = peakRssMiB(child.pid);
        r.cpu_steal_pct = steal.stop();
        log(`${db.backend}: ${JSON.stringify(r)}`);
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await reference.close();
    }
    return results;
  } finally {
    await db.drop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  runSbomPortfolioBench({
    runs: arg('runs') ? Number(arg('runs')) : undefined,
    seedProducts: arg('seed-products') ? Number(arg('seed-products')) : undefined,
    distinct: arg('distinct') ? Number(arg('distinct')) : undefined,
  }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
