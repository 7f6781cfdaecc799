// Reading an OSV export's zip (docs/benchmarks.md, "Reading a zip"): the stored bytes of every
// `.json` entry, in order, as an import's first step hands them to the record workers, through
// the reader of src/vulns/feeds/osv-source.ts (the built one) and through yauzl (decodeFileData:
// false: no inflating either, both hand on the deflated bytes). Interleaved rounds, each reader
// in a process of its own; wall time, CPU time and peak RSS of each.
//
//   npm run build && node bench/zip-read.mjs [--records 200000] [--runs 3] [--file export.zip]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, range } from './stats.mjs';
import { generatedExport } from './vulns.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Runs in the child: reads every entry with `reader`, prints one JSON line. */
async function readAll(reader, file) {
  const { cpuUsage } = process;
  const cpu = cpuUsage();
  const started = performance.now();
  let source;
  if (reader === 'own') {
    const { zipSource } = await import(pathToFileURL(join(ROOT, 'dist/vulns/feeds/osv-source.js')).href);
    source = (await zipSource(file)).items;
  } else {
    source = yauzlItems(file);
  }
  let entries = 0;
  let bytes = 0;
  for await (const item of source) {
    entries++;
    bytes += item.data.length;
  }
  const used = cpuUsage(cpu);
  const peak = Number(/VmHWM:\s+(\d+) kB/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  console.log(
    JSON.stringify({
      entries,
      bytes,
      ms: Math.round(performance.now() - started),
      cpuMs: Math.round((used.user + used.system) / 1000),
      peakRssMiB: Math.round(peak / 1024),
    }),
  );
}

/** The same items through yauzl's promise API: an entry stream each, its stored bytes collected. */
async function* yauzlItems(file) {
  const { default: yauzl } = await import('yauzl');
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false });
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName.toString('utf8');
      if (!name.endsWith('.json')) continue;
      const chunks = [];
      for await (const chunk of await zip.openReadStreamPromise(entry, { decodeFileData: false })) chunks.push(chunk);
      yield { entry: name, data: Buffer.concat(chunks), method: entry.compressionMethod, size: entry.uncompressedSize };
    }
  } finally {
    zip.close();
  }
}

function inProcess(reader, file) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', reader, file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${reader} exited ${code}`))));
  });
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  await readAll(args[1], args[2]);
} else {
  const arg = (name, fallback) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : fallback;
  };
  const records = Number(arg('records', 200_000));
  const runs = Number(arg('runs', 3));
  const dir = mkdtempSync(join(tmpdir(), 'cra-bench-zip-'));
  try {
    let file = arg('file', null);
    if (!file) {
      file = join(dir, 'all.zip');
      const started = performance.now();
      generatedExport(file, records);
      console.log(`generated ${records.toLocaleString('en')} OSV records in ${Math.round(performance.now() - started)} ms`);
    }
    const results = { own: [], yauzl: [] };
    for (let run = 0; run < runs; run++) {
      for (const reader of run % 2 ? ['yauzl', 'own'] : ['own', 'yauzl']) {
        const result = await inProcess(reader, file);
        results[reader].push(result);
        console.log(`run ${run + 1} ${reader.padEnd(5)} ${JSON.stringify(result)}`);
      }
    }
    for (const [reader, rows] of Object.entries(results)) {
      const ms = rows.map((r) => r.ms);
      const [lo, hi] = range(ms);
      const perSecond = Math.round(rows[0].entries / (median(ms) / 1000));
      console.log(
        `${reader.padEnd(5)} ${rows[0].entries} entries: ${median(ms)} ms (${lo}–${hi}), ${perSecond} entries/s, ` +
          `CPU ${median(rows.map((r) => r.cpuMs))} ms, peak RSS ${median(rows.map((r) => r.peakRssMiB))} MiB`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
