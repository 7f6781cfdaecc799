// Vulnerability intelligence rows (docs/benchmarks.md, `npm run bench -- --only vulns`): the OSV
// import rate and its peak memory, on records generated in the shape of osv.dev's exports. Each
// run imports into a fresh database (SQLite by default; with DATABASE_URL=postgres://… a scratch
// database on that server) through `cra-admin vuln import`, as an operator would, in a process
// of its own whose peak RSS is read from /proc. Each run then imports NVD records generated in the
// NVD's shape (bench/nvd-feed.mjs: its yearly 2.0 feed files) into another fresh database, and the
// NVD row's goal is a ratio to the OSV row's rate in that run (firmware.md, Goals).
//
//   npm run build && node bench/vulns.mjs [--records 200000] [--nvd-records 300000] [--runs 3]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './http.mjs';
import { generatedNvdFeeds, random } from './nvd-feed.mjs';
import { benchDatabase, peakRssMiB, ROOT } from './sbom-ingest.mjs';
import { zipWriter } from './zip-writer.mjs';

const ECOSYSTEMS = [
  {
    ecosystem: 'npm',
    name: (i) => `pkg-${i % 40_000}`,
    version: (r) => `${1 + Math.floor(r() * 5)}.${Math.floor(r() * 20)}.${Math.floor(r() * 30)}`,
  },
  {
    ecosystem: 'PyPI',
    name: (i) => `py_pkg.${i % 30_000}`,
    version: (r) => `${1 + Math.floor(r() * 5)}.${Math.floor(r() * 20)}.${Math.floor(r() * 30)}`,
  },
  {
    ecosystem: 'Go',
    name: (i) => `github.com/org${i % 3_000}/mod${i % 20_000}`,
    version: (r) => `${Math.floor(r() * 3)}.${Math.floor(r() * 20)}.${Math.floor(r() * 30)}`,
  },
  {
    ecosystem: 'Maven',
    name: (i) => `org.example${i % 2_000}:artifact-${i % 25_000}`,
    version: (r) => `${1 + Math.floor(r() * 5)}.${Math.floor(r() * 20)}.${Math.floor(r() * 30)}`,
  },
];
const LOREM =
  'An attacker who can send crafted input to the affected component can cause it to read or write out of bounds, leading to denial of service or, in some configurations, execution of code. ';

/** One record shaped like osv.dev's: aliases, summary, details, severity, affected ranges, references. */
export function generatedRecord(i, r = random(i + 1)) {
  const kind = ECOSYSTEMS[i % ECOSYSTEMS.length];
  const year = 2015 + (i % 11);
  const cve = `CVE-${year}-${String(10_000 + i).padStart(5, '0')}`;
  const ghsa = `GHSA-${i.toString(36).padStart(4, 'x')}-${(i * 7).toString(36).padStart(4, 'y').slice(-4)}-${(i * 13).toString(36).padStart(4, 'z').slice(-4)}`;
  const introduced = r() < 0.4 ? '0' : kind.version(r);
  const fixed = kind.version(r);
  const affected = [
    {
      package: { ecosystem: kind.ecosystem, name: kind.name(i) },
      ranges: [{ type: kind.ecosystem === 'Go' || kind.ecosystem === 'npm' ? 'SEMVER' : 'ECOSYSTEM', events: [{ introduced }, { fixed }] }],
      ...(r() < 0.3 ? { versions: [fixed.replace(/\d+$/, '0')] } : {}),
      database_specific: { source: `https://example.org/${kind.ecosystem}/${i}.json` },
    },
  ];
  return {
    schema_version: '1.6.0',
    id: kind.ecosystem === 'Go' ? `GO-${year}-${String(i).padStart(5, '0')}` : kind.ecosystem === 'PyPI' ? `PYSEC-${year}-${i}` : ghsa,
    modified: `${year + 1}-0${1 + (i % 9)}-1${i % 10}T10:00:00Z`,
    published: `${year}-0${1 + (i % 9)}-1${i % 10}T10:00:00Z`,
    aliases: kind.ecosystem === 'npm' || kind.ecosystem === 'Maven' ? [cve] : [cve, ghsa],
    summary: `Out-of-bounds access in ${kind.name(i)}`,
    details: LOREM.repeat(1 + Math.floor(r() * 4)),
    severity: r() < 0.6 ? [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }] : [],
    affected,
    references: [
      { type: 'ADVISORY', url: `https://nvd.nist.gov/vuln/detail/${cve}` },
      { type: 'WEB', url: `https://github.com/example/${i}/issues/${i % 997}` },
      { type: 'PACKAGE', url: `https://example.org/packages/${kind.name(i)}` },
    ],
  };
}

/** osv.dev's layout: one `ID.json` per record in a zip, written as it is generated. */
export function generatedExport(path, records) {
  const zip = zipWriter(path);
  for (let i = 0; i < records; i++) {
    const record = generatedRecord(i);
    zip.add(`${record.id}.json`, Buffer.from(JSON.stringify(record, null, 2)));
  }
  zip.end();
}

/** `cra-admin vuln import FILE… --json` in a process of its own; its summary (summed over the files) and peak RSS. */
function importInProcess(databaseUrl, files) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'vuln', 'import', ...[files].flat(), '--json'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', CONSOLE_SECRET: 'bench' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, peakRssMiB(child.pid) ?? 0)), 100);
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code !== 0) return reject(new Error(`vuln import exited ${code}`));
      const summaries = [JSON.parse(out)].flat();
      const sum = (key) => summaries.reduce((n, x) => n + x[key], 0);
      const summary = {
        new: sum('new'),
        withdrawn: sum('withdrawn'),
        took_ms: sum('took_ms'),
        skipped: summaries.flatMap((x) => x.skipped),
      };
      resolve({ summary, peakRssMiB: peak });
    });
  });
}

async function migrate(databaseUrl) {
  await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'migrate'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
      stdio: 'ignore',
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`migrate exited ${code}`))));
  });
}

/** One import into a fresh database: its rate in records/s and peak RSS. */
async function timedImport(files, records, label) {
  const database = await benchDatabase(process.env.DATABASE_URL);
  try {
    await migrate(database.url);
    const { summary, peakRssMiB: peak } = await importInProcess(database.url, files);
    if (summary.new + summary.withdrawn !== records)
      throw new Error(`${label}: imported ${summary.new} of ${records}: ${JSON.stringify(summary.skipped.slice(0, 3))}`);
    const rate = Math.round((records / summary.took_ms) * 1000);
    console.log(`  ${label} (${database.backend}): ${summary.took_ms} ms, ${rate} records/s, peak RSS ${peak} MiB`);
    return { rate, peak };
  } finally {
    await database.drop();
  }
}

export async function runVulnBench({ records = 200_000, nvdRecords = 300_000, runs = 3 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cra-bench-vulns-'));
  const file = join(dir, 'all.zip');
  try {
    const started = performance.now();
    generatedExport(file, records);
    console.log(`generated ${records.toLocaleString('en')} OSV records in ${Math.round(performance.now() - started)} ms`);
    const nvdStarted = performance.now();
    const nvdFiles = nvdRecords > 0 ? generatedNvdFeeds(join(dir, 'nvd'), nvdRecords) : [];
    if (nvdRecords > 0)
      console.log(`generated ${nvdRecords.toLocaleString('en')} NVD records in ${Math.round(performance.now() - nvdStarted)} ms`);
    const nvd = [];
    const rates = [];
    const peaks = [];
    for (let run = 0; run < runs; run++) {
      const osv = await timedImport(file, records, `run ${run + 1}, OSV`);
      rates.push(osv.rate);
      peaks.push(osv.peak);
      if (nvdRecords > 0) nvd.push({ ...(await timedImport(nvdFiles, nvdRecords, `run ${run + 1}, NVD`)), osv: osv.rate });
    }
    const row = {
      name: `OSV import, ${records.toLocaleString('en')} new records (generated, osv.dev's shape)`,
      records_per_second: median(rates),
      records_per_second_range: [Math.min(...rates), Math.max(...rates)],
      peak_rss_mib: median(peaks),
      peak_rss_mib_range: [Math.min(...peaks), Math.max(...peaks)],
      goal: '≥ 10,000 records/s; peak RSS < 300 MiB',
    };
    row.met = row.records_per_second >= 10_000 && row.peak_rss_mib < 300 ? 'met' : 'MISSED';
    if (nvd.length === 0) return [row];
    // Each run's NVD rate over its OSV rate, a moment apart on the same host: the median of those.
    const ratios = nvd.map((n) => n.rate / n.osv);
    const nvdRow = {
      name: `NVD import, ${nvdRecords.toLocaleString('en')} new records (generated, the NVD's shape, yearly 2.0 feed files)`,
      records_per_second: median(nvd.map((n) => n.rate)),
      records_per_second_range: [Math.min(...nvd.map((n) => n.rate)), Math.max(...nvd.map((n) => n.rate))],
      ratio_to_osv: Math.round(median(ratios) * 100) / 100,
      ratio_range: [Math.min(...ratios), Math.max(...ratios)].map((x) => Math.round(x * 100) / 100),
      peak_rss_mib: median(nvd.map((n) => n.peak)),
      peak_rss_mib_range: [Math.min(...nvd.map((n) => n.peak)), Math.max(...nvd.map((n) => n.peak))],
      goal: '≥ the OSV row’s records/s in the same run (ratio ≥ 1); peak RSS < 300 MiB',
    };
    nvdRow.met = nvdRow.ratio_to_osv >= 1 && nvdRow.peak_rss_mib < 300 ? 'met' : 'MISSED';
    return [row, nvdRow];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const rows = await runVulnBench({ records: arg('records', 200_000), nvdRecords: arg('nvd-records', 300_000), runs: arg('runs', 3) });
  console.log(JSON.stringify(rows, null, 2));
}
