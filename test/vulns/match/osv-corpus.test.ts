import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { packageOfOsv } from '../../../src/vulns/match/purl.js';
import { orderOf } from '../../../src/vulns/match/version-order.js';
import { FIXTURES } from './vectors.js';

interface Corpus {
  records: number;
  affected: number;
  packages: { ecosystem: string; name: string; purl?: string; events: [string, string][] }[];
}

// Every package and range event of the 4,291 Go and 2,661 PyPI records of the shared OSV exports,
// as scripts/osv-package-events.mjs extracts them (the zips themselves stay out of the repository).
describe('the Go and PyPI OSV databases', () => {
  const corpus = JSON.parse(gunzipSync(readFileSync(join(FIXTURES, 'vulns', 'osv-package-events.json.gz'))).toString('utf8')) as Corpus;

  it('hold the records the fixture was made from (distinct packages and events)', () => {
    assert.deepEqual([corpus.records, corpus.affected, corpus.packages.length], [6952, 8786, 2037]);
  });

  it('give every affected package a join key', () => {
    assert.deepEqual(
      corpus.packages.filter((p) => packageOfOsv(p) === null),
      [],
    );
  });

  it("hold only event versions their ecosystem's order reads, but for two PyPI records' fixed versions", () => {
    const unreadable = corpus.packages.flatMap((p) =>
      p.events
        .filter(([field, version]) => !(field === 'introduced' && version === '0') && !orderOf(p.ecosystem)!.valid(version))
        .map(([field, version]) => `${p.ecosystem} ${p.name} ${field} ${version}`),
    );
    // PYSEC-2019-125 (steam) and PYSEC-2021-371 (binderhub) give fixed versions outside PEP 440:
    // affects() takes nothing from those ranges, as osv-scanner (which sorts them below every PEP
    // 440 version) finds no PEP 440 version affected by them either.
    assert.deepEqual(unreadable, ['PyPI steam fixed 2019-09-12', 'PyPI binderhub fixed 0.2.0-n653']);
    assert.equal(corpus.packages.flatMap((p) => p.events).length, 8334);
  });
});
