import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EuvdMappingReader, isEuvdExploitedList, looksLikeEuvdMapping, readEuvdExploited } from '../../../src/vulns/feeds/euvd.js';
import { FeedRecordError } from '../../../src/vulns/feeds/json-text.js';
import { kevKindOf } from '../../../src/vulns/feeds/kev.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/firmware/euvd/${name}`, import.meta.url));

/** The mapping's rows, its text handed over `size` bytes at a time. */
function readMapping(bytes: Buffer, size: number) {
  const reader = new EuvdMappingReader();
  const pairs = [];
  for (let at = 0; at < bytes.length; at += size) pairs.push(...reader.push(bytes.subarray(at, at + size)));
  pairs.push(...reader.end());
  return { pairs, skipped: reader.skipped, rows: reader.rows };
}

describe('the EUVD dumps', () => {
  it('reads the EUVD↔CVE mapping of ENISA’s dump, whatever the chunks', () => {
    const sample = fixture('cve-euvd-mapping.sample.csv');
    assert.equal(looksLikeEuvdMapping(sample.toString('utf8')), true);
    for (const size of [1, 3, 1000])
      assert.deepEqual(readMapping(sample, size), { pairs: [{ euvd: 'EUVD-2021-9696', cve: 'CVE-2021-22555' }], skipped: [], rows: 1 });
  });

  it('reads CRLF lines, quoted fields and a byte-order mark; skips and names the rows it cannot read', () => {
    const text =
      '\uFEFF"euvd_id","cve_id"\r\n"EUVD-2024-1","CVE-2024-0001"\r\nEUVD-2024-2,not-a-cve\r\nEUVD-x,CVE-2024-0003\r\na,b,c\r\n\r\nEUVD-2024-5,CVE-2024-0005';
    const read = readMapping(Buffer.from(text), 7);
    assert.deepEqual(read.pairs, [
      { euvd: 'EUVD-2024-1', cve: 'CVE-2024-0001' },
      { euvd: 'EUVD-2024-5', cve: 'CVE-2024-0005' },
    ]);
    assert.deepEqual(read.skipped, [
      { entry: 'line 3', reason: 'cve_id must be a CVE id' },
      { entry: 'line 4', reason: 'euvd_id must be an EUVD id' },
      { entry: 'line 5', reason: 'has 3 fields, not 2' },
    ]);
    assert.equal(read.rows, 5);
  });

  it('refuses a file that is not the mapping, or not UTF-8, saying why', () => {
    assert.throws(
      () => readMapping(Buffer.from('id,cve\nEUVD-2024-1,CVE-2024-0001\n'), 100),
      /does not start with the header euvd_id,cve_id/,
    );
    assert.throws(() => readMapping(Buffer.from(''), 100), /is empty/);
    assert.throws(
      () => readMapping(Buffer.from([0x65, 0xff, 0xfe, 0x0a]), 100),
      (e: unknown) => e instanceof FeedRecordError && /UTF-8/.test(e.message),
    );
    assert.throws(() => readMapping(Buffer.from(`euvd_id,cve_id\n${'x'.repeat(5000)}`), 100), /longer than 4,096 characters/);
  });

  it('reads the exploited list as KEV entries of source euvd, keeping its sources as given', () => {
    const list = JSON.parse(fixture('kev-dump.sample.json').toString('utf8'));
    assert.equal(isEuvdExploitedList(list), true);
    assert.equal(kevKindOf(list), null, 'not taken for the EU CSIRTs Network’s KEV list');
    const { entries, skipped } = readEuvdExploited(list);
    assert.deepEqual(skipped, []);
    assert.deepEqual(entries, [
      { source: 'euvd', cve: 'CVE-2021-22555', euvd: 'EUVD-2021-9696', dateAdded: '2025-10-06', ransomware: null, data: list[0] },
    ]);
  });

  it('skips and names the exploited list’s entries it cannot read', () => {
    const { entries, skipped } = readEuvdExploited([
      { cveId: 'CVE-2024-0001', euvdId: 'EUVD-2024-1', dateAdded: '2025-01-02T10:00:00Z', sources: ['eu_kev', 'CISA KEV'] },
      { cveId: 'CVE-2024-0001', euvdId: 'EUVD-2024-1' },
      { euvdId: 'EUVD-2024-2' },
      { cveId: 'CVE-2024-0003', euvdId: 'nope' },
      { cveId: 'CVE-2024-0004', euvdId: 'EUVD-2024-4', sources: 'cisa_kev' },
      'text',
    ]);
    assert.deepEqual(
      entries.map((e) => [e.cve, e.dateAdded, (e.data as { sources: string[] }).sources]),
      [['CVE-2024-0001', '2025-01-02', ['eu_kev', 'CISA KEV']]],
    );
    assert.deepEqual(skipped, [
      { entry: '#2', reason: 'CVE-2024-0001 is listed twice' },
      { entry: '#3', reason: 'EUVD-2024-2 names no CVE id' },
      { entry: '#4', reason: 'euvdId must be an EUVD id' },
      { entry: '#5', reason: 'sources must be an array of strings' },
      { entry: '#6', reason: 'must be an object' },
    ]);
    assert.equal(isEuvdExploitedList([{ cveID: 'CVE-2024-0001', euvdID: 'EUVD-2024-1' }]), false);
  });
});
