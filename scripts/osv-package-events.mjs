// Writes test/fixtures/vulns/osv-package-events.json.gz: every distinct OSV package (ecosystem,
// name, purl) of the given OSV zips with the distinct range events (field and version) of its
// SEMVER and ECOSYSTEM ranges. test/vulns/match/osv-corpus.test.ts checks that each package gets a
// join key and each event version is one its ecosystem's order reads, without keeping the
// several-MB zips in the repository.
//
// Regenerate (the zips are osv.dev-style exports, one ID.json per record):
//   node scripts/osv-package-events.mjs test/fixtures/vulns/osv-go.zip test/fixtures/vulns/osv-pypi.zip
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gzipSync } from 'node:zlib';
import yauzl from 'yauzl';

const OUTPUT = new URL('../test/fixtures/vulns/osv-package-events.json.gz', import.meta.url);

/** Every .json entry of a zip, parsed, in the zip's order. */
function readRecords(path) {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const records = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(records));
      zip.on('entry', (entry) => {
        if (!entry.fileName.endsWith('.json')) return zip.readEntry();
        zip.openReadStream(entry, (error, stream) => {
          if (error) return reject(error);
          const chunks = [];
          stream.on('data', (chunk) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            records.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

const zips = process.argv.slice(2);
if (zips.length === 0) {
  console.error('usage: node scripts/osv-package-events.mjs OSV.zip…');
  process.exit(2);
}
const packages = new Map();
let records = 0;
let entries = 0;
for (const zip of zips) {
  for (const record of await readRecords(zip)) {
    records++;
    for (const affected of record.affected ?? []) {
      entries++;
      const { ecosystem, name, purl } = affected.package;
      const id = JSON.stringify([ecosystem, name, purl ?? null]);
      if (!packages.has(id)) packages.set(id, { ecosystem, name, ...(purl ? { purl } : {}), events: new Set() });
      for (const range of affected.ranges ?? []) {
        if (range.type !== 'SEMVER' && range.type !== 'ECOSYSTEM') continue;
        for (const event of range.events)
          for (const [field, version] of Object.entries(event)) packages.get(id).events.add(`${field} ${version}`);
      }
    }
  }
}
const fixture = {
  source: zips.map((zip) => basename(zip)),
  records,
  affected: entries,
  packages: [...packages.values()].map((p) => ({
    ...p,
    events: [...p.events].sort().map((e) => [e.slice(0, e.indexOf(' ')), e.slice(e.indexOf(' ') + 1)]),
  })),
};
writeFileSync(OUTPUT, gzipSync(`${JSON.stringify(fixture)}\n`, { level: 9 }));
console.log(`${records} records, ${entries} affected entries, ${packages.size} packages → ${OUTPUT.pathname}`);
