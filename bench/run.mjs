// `npm run bench`: the service against the framework's limit on this machine, in one run.
// Prints a table and writes bench/results.json. Options: --duration S (per HTTP target, 6),
// --connections N (50), --rounds N (3), --sbom-runs N (5), --skip-sbom, --only products,429,
// --only webhooks (API throughput with 1,000 webhook deliveries pending, bench/webhooks-pending.mjs),
// --only sbom (the SBOM rows alone: ingest, read latency during an ingest, storage, search, RSS;
// with DATABASE_URL=postgres://… they run on a scratch database of that PostgreSQL server),
// --only console (sign-in and each console page with 1,000 products and 1,000 cases, bench/console.mjs),
// --only sbom-portfolio (new and known components on a 1,000,000-reference portfolio, bench/sbom-portfolio.mjs),
// --only sbom-check (`cra-admin sbom check` of 100,000 components against upload's parse of it, bench/sbom-check.mjs),
// --only vulns (OSV import rate and memory, re-matching, finding list, findings of a new SBOM:
// bench/vulns.mjs and bench/vulns-match.mjs; DATABASE_URL=postgres://… for PostgreSQL).
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { printConsoleRows, runConsoleBench } from './console.mjs';
import { runHttpBench } from './http.mjs';
import { runSbomIngestBench } from './sbom-ingest.mjs';
import { runSbomScaleBench } from './sbom-scale.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const duration = Number(arg('duration', 6));
const connections = Number(arg('connections', 50));
const sbomRuns = Number(arg('sbom-runs', 5));

const GOALS = {
  'GET products': 0.5,
  'GET compliance-score': 0.5,
  'POST incidents': 0.15,
  '429 path': 0.5,
};

const only = arg('only', null)?.split(',');
if (only?.length === 1 && only[0] === 'webhooks') {
  // The webhooks row alone (bench/webhooks-pending.mjs): API throughput with 1,000 deliveries pending.
  const { benchWebhooks } = await import('./webhooks-pending.mjs');
  await benchWebhooks({ duration, connections, rounds: Number(arg('rounds', 3)) });
  process.exit(0);
}
if (only?.length === 1 && only[0] === 'vulns') {
  // Vulnerability intelligence alone (bench/vulns.mjs, bench/vulns-match.mjs), on the backend of
  // DATABASE_URL (SQLite when unset): written to bench/results-vulns-<backend>.json.
  const { runVulnBench } = await import('./vulns.mjs');
  const { runVulnMatchBench } = await import('./vulns-match.mjs');
  const runs = Number(arg('rounds', 3));
  console.log(`Vulnerability intelligence: median of ${runs} runs (range)`);
  const vulnRows = [...(await runVulnBench({ runs })), ...(await runVulnMatchBench({ runs }))];
  const backend = /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '') ? 'postgres' : 'sqlite';
  for (const row of vulnRows) console.log(JSON.stringify(row));
  const results = {
    measured_at: new Date().toISOString(),
    backend,
    machine: { cpus: cpus().length, node: process.version },
    vulns: vulnRows,
  };
  writeFileSync(fileURLToPath(new URL(`./results-vulns-${backend}.json`, import.meta.url)), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote bench/results-vulns-${backend}.json`);
  process.exit(0);
}
if (only?.length === 1 && only[0] === 'sbom-portfolio') {
  // New and known components on a 1,000,000-reference portfolio (bench/sbom-portfolio.mjs), on
  // the backend of DATABASE_URL: written to bench/results-sbom-portfolio-<backend>.json.
  const { runSbomPortfolioBench } = await import('./sbom-portfolio.mjs');
  const portfolio = await runSbomPortfolioBench({ runs: sbomRuns });
  const backend = portfolio[0]?.backend ?? 'sqlite';
  const results = { measured_at: new Date().toISOString(), backend, machine: { cpus: cpus().length, node: process.version }, portfolio };
  writeFileSync(
    fileURLToPath(new URL(`./results-sbom-portfolio-${backend}.json`, import.meta.url)),
    `${JSON.stringify(results, null, 2)}\n`,
  );
  console.log(`wrote bench/results-sbom-portfolio-${backend}.json`);
  process.exit(0);
}
if (only?.length === 1 && only[0] === 'sbom-check') {
  // `cra-admin sbom check` against the upload's parse of the same 100,000-component document, each a
  // process, alternating (bench/sbom-check.mjs): written to bench/results-sbom-check.json.
  const { runSbomCheckBench } = await import('./sbom-check.mjs');
  const check = await runSbomCheckBench({ runs: sbomRuns });
  for (const row of check.rows) console.log(JSON.stringify(row));
  console.log(`sbom check / upload parse: ${check.ratio} (goal ≤ ${check.goal})`);
  const results = { measured_at: new Date().toISOString(), machine: { cpus: cpus().length, node: process.version }, ...check };
  writeFileSync(fileURLToPath(new URL('./results-sbom-check.json', import.meta.url)), `${JSON.stringify(results, null, 2)}\n`);
  console.log('wrote bench/results-sbom-check.json');
  process.exit(0);
}
const sbomOnly = only?.length === 1 && only[0] === 'sbom';
const consoleOnly = only?.length === 1 && only[0] === 'console';
const rounds = Number(arg('rounds', 3));
let http = [];
if (!sbomOnly && !consoleOnly) {
  console.log(
    `HTTP: ${connections} connections, ${duration} s per target after a 2 s warm-up, median of ${rounds} interleaved rounds, range beside it`,
  );
  http = await runHttpBench({ duration, connections, rounds, only });
}
let sbom = [];
let sbomScale = [];
if (!process.argv.includes('--skip-sbom') && !consoleOnly) {
  console.log(`SBOM ingest: CycloneDX 1.6, median of ${sbomRuns} uploads per size`);
  sbom = await runSbomIngestBench({ sizes: [10_000, 100_000], runs: sbomRuns });
  console.log('SBOM at scale: each row on a fresh database and server');
  sbomScale = await runSbomScaleBench({ runs: sbomRuns });
}

let consoleRows = [];
if (!only || only.includes('console')) consoleRows = await runConsoleBench({ rounds });

const rows = http.map((r) => {
  // PostgreSQL's reads: within 2× of SQLite's in the same rounds.
  if (r.ratio_to_sqlite !== undefined)
    return { ...r, goal: '≥ 0.5 of SQLite, p99 < 50 ms', met: r.ratio_to_sqlite >= 0.5 && r.latency_p99_ms < 50 ? 'met' : 'MISSED' };
  const goal = GOALS[r.name];
  const met = goal === undefined ? '' : r.ratio_to_bare >= goal && r.latency_p99_ms < 50 ? 'met' : 'MISSED';
  return { ...r, goal: goal === undefined ? '' : `≥ ${goal}, p99 < 50 ms`, met };
});

const pad = (v, n) => String(v).padEnd(n);
const span = ([lo, hi]) => (lo === hi ? '' : ` (${lo}–${hi})`);
if (rows.length)
  console.log(
    `\n${pad('target', 28)}${pad('req/s median (range)', 24)}${pad('ratio (range)', 20)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('bytes', 10)}${pad('steal %', 9)}${pad('goal', 28)}status codes`,
  );
for (const r of rows) {
  console.log(
    `${pad(r.name, 28)}${pad(r.requests_per_second + span(r.requests_per_second_range), 24)}${pad(r.ratio_to_bare + span(r.ratio_to_bare_range), 20)}` +
      `${pad(r.latency_p50_ms, 8)}${pad(r.latency_p99_ms, 8)}${pad(r.response_bytes ?? '?', 10)}${pad(r.cpu_steal_pct ?? '?', 9)}${pad(r.goal ? `${r.goal} ${r.met}${r.ratio_to_sqlite !== undefined ? ` (${r.ratio_to_sqlite})` : ''}` : '', 28)}${JSON.stringify(r.status_codes)}`,
  );
}
if (sbom.length) {
  console.log(
    `\n${pad('SBOM components', 18)}${pad('MiB', 7)}${pad('median ms (range)', 20)}${pad('components/s', 14)}${pad('peak RSS MiB', 14)}${pad('steal %', 9)}goal`,
  );
  for (const s of sbom.filter((row) => row.stored_document === undefined)) {
    const goal =
      s.components === 10_000
        ? s.components_per_second >= 100_000
          ? '≥ 100,000/s met'
          : '≥ 100,000/s MISSED'
        : s.median_ms < 1500
          ? '< 1.5 s met'
          : '< 1.5 s MISSED';
    console.log(
      `${pad(s.components.toLocaleString('en'), 18)}${pad(s.document_mib, 7)}${pad(s.median_ms + span([s.min_ms, s.max_ms]), 20)}${pad(s.components_per_second.toLocaleString('en'), 14)}` +
        `${pad(s.server_peak_rss_mib ?? '?', 14)}${pad(s.cpu_steal_pct ?? '?', 9)}${goal}`,
    );
  }
}

for (const s of sbom.filter((row) => row.stored_document !== undefined)) {
  const met = s.stored_pct === null ? 'not kept by this build' : s.stored_pct <= 15 ? '≤ 15 % met' : '≤ 15 % MISSED';
  console.log(
    `\nstored document (${s.backend}), ${s.stored_document}: ${s.stored_bytes ?? '?'} of ${s.document_bytes} bytes, ${s.stored_pct ?? '?'} %; ${met}`,
  );
}

if (sbomScale.length) {
  const met = (row) => `${row.goal} ${row.met ? 'met' : 'MISSED'}`;
  const latency = sbomScale.find((row) => row.p99_ms !== undefined);
  const storage = sbomScale.find((row) => row.kib !== undefined);
  const search = sbomScale.find((row) => row.purl_ms !== undefined);
  const rss = sbomScale.find((row) => row.peak_rss_mib !== undefined);
  console.log(`\nSBOM at scale (${sbomScale[0].backend}), median of rounds (range)`);
  if (latency)
    console.log(
      `${pad(latency.name, 46)}p99 ${latency.p99_ms} ms${span(latency.p99_range)}, max ${latency.max_ms} ms${span(latency.max_range)}  ${met(latency)}`,
    );
  if (storage) console.log(`${pad(storage.name, 46)}${storage.kib} KiB${span(storage.kib_range)}  ${met(storage)}`);
  if (search)
    console.log(
      `${pad(search.name, 46)}by purl ${search.purl_ms} ms${span(search.purl_range)}, by name ${search.name_ms} ms${span(search.name_range)}, ${search.hits} hits  ${met(search)}`,
    );
  if (rss)
    console.log(
      `${pad(rss.name, 46)}${rss.peak_rss_mib} MiB, ${rss.refused_503} answers 503 then retried, all stored in ${rss.all_stored_s} s  ${met(rss)}`,
    );
}

if (consoleRows.length) printConsoleRows(consoleRows);

const results = {
  measured_at: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
  settings: { duration_s: duration, connections, rounds, sbom_runs: sbomRuns },
  http: rows,
  sbom_ingest: sbom,
  sbom_scale: sbomScale,
  console: consoleRows,
};
// A run of the SBOM rows alone keeps the full run's file and writes its own, per backend.
const file = sbomOnly ? `results-sbom-${sbomScale[0]?.backend ?? 'sqlite'}.json` : consoleOnly ? 'results-console.json' : 'results.json';
writeFileSync(fileURLToPath(new URL(`./${file}`, import.meta.url)), `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nwrote bench/${file}`);
