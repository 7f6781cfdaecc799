// `cra-admin sbom check` of a 100,000-component CycloneDX 1.6 document against the upload's parse
// of the same file (bench/sbom-parse-once.mjs), each a process of its own, alternating, in one run:
// wall time from spawn to exit and peak RSS (/usr/bin/time's maximum resident set).
//
//   npm run build && node bench/sbom-check.mjs [--runs 5] [--components 100000]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { benchComponents, benchDocument, ROOT } from './sbom-ingest.mjs';
import { median, range, round1 } from './stats.mjs';

/** Runs `args` under /usr/bin/time: its wall time in ms, peak RSS in MiB, exit code. */
function timed(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      const kb = Number(err.trim().split('\n').at(-1));
      resolve({ ms, rssMiB: Math.round(kb / 1024), code, err });
    });
  });
}

export async function runSbomCheckBench({ runs = 5, components = 100_000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cra-bench-check-'));
  const file = join(dir, 'bom.json');
  writeFileSync(file, benchDocument(benchComponents(components)));
  const parse = { ms: [], rss: [] };
  const check = { ms: [], rss: [] };
  try {
    for (let run = 0; run <= runs; run++) {
      // Alternating which goes first, so neither always runs on a cooler cache.
      const order = run % 2 ? ['check', 'parse'] : ['parse', 'check'];
      for (const which of order) {
        const args = which === 'parse' ? ['bench/sbom-parse-once.mjs', file] : ['dist/cli/main.js', 'sbom', 'check', file, '--json'];
        const r = await timed(args);
        // The generated document has no creator and no SHA-512: check exits 1 (does not conform).
        const expected = which === 'parse' ? 0 : 1;
        if (r.code !== expected) throw new Error(`${which} exited ${r.code}: ${r.err.slice(0, 500)}`);
        if (run === 0) continue; // warm-up: the file in the page cache, the build loaded once
        (which === 'parse' ? parse : check).ms.push(r.ms);
        (which === 'parse' ? parse : check).rss.push(r.rssMiB);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const row = (name, m) => ({
    row: name,
    components,
    median_ms: round1(median(m.ms)),
    range_ms: range(m.ms).map(round1),
    peak_rss_mib: median(m.rss),
    rss_range_mib: range(m.rss),
  });
  const rows = [row('sbom upload parse (process)', parse), row('cra-admin sbom check (process)', check)];
  return { rows, ratio: Math.round((median(check.ms) / median(parse.ms)) * 100) / 100, goal: 1.1 };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--runs');
  const c = process.argv.indexOf('--components');
  const result = await runSbomCheckBench({
    runs: i > 0 ? Number(process.argv[i + 1]) : 5,
    components: c > 0 ? Number(process.argv[c + 1]) : 100_000,
  });
  for (const r of result.rows) console.log(JSON.stringify(r));
  console.log(`sbom check / upload parse: ${result.ratio} (goal ≤ ${result.goal})`);
}
