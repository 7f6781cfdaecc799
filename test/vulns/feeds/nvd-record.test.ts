import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { checkedCanonical } from '../../../src/vulns/feeds/json-text.js';
import { nvdCvss, readNvdRecord } from '../../../src/vulns/feeds/nvd-record.js';

const MIRROR = new URL('../../fixtures/firmware/nvd/mirror/', import.meta.url);
const record = (path: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(path, MIRROR), 'utf8'));
const read = (value: unknown) => readNvdRecord(value, checkedCanonical(value));

describe('an NVD CVE record as the platform keeps it', () => {
  it('reads a real analysed record: id, English description, the primary CVSS, the products its criteria name', () => {
    const r = read(record('CVE-2021/CVE-2021-423xx/CVE-2021-42386.json'));
    assert.equal(r.id, 'CVE-2021-42386');
    assert.equal(r.status, 'Modified');
    assert.match(r.summary ?? '', /^A use-after-free in Busybox's awk applet/);
    assert.deepEqual(r.cvss, { score: 7.2, vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', source: 'nvd@nist.gov', primary: true });
    assert.ok(r.productKeys.includes('busybox:busybox'), r.productKeys.join());
    assert.equal(r.everyProduct, false);
    assert.equal(r.withdrawn, null);
    assert.equal(r.cisaExploitAdd, null);
    assert.match(r.digest, /^[0-9a-f]{64}$/);
    assert.equal(r.configurations[0]?.nodes?.[0]?.cpeMatch?.[0]?.criteria.startsWith('cpe:2.3:a:busybox:busybox:'), true);
  });

  it('takes CVSS v3.0 where the record has nothing newer, and cisaExploitAdd where it is set', () => {
    assert.equal(read(record('CVE-2017/CVE-2017-172xx/CVE-2017-17215.json')).cvss?.vector.startsWith('CVSS:3.0/'), true);
    const tpLink = read(record('CVE-2023/CVE-2023-13xx/CVE-2023-1389.json'));
    assert.equal(tpLink.cisaExploitAdd, '2023-05-01');
    assert.deepEqual(tpLink.productKeys, ['tp-link:archer_ax21', 'tp-link:archer_ax21_firmware']);
  });

  it('marks a Rejected record withdrawn at its last modification, and keeps a record without configurations', () => {
    const rejected = read(record('CVE-2018/CVE-2018-156xx/CVE-2018-15654.json'));
    assert.equal(rejected.status, 'Rejected');
    assert.equal(rejected.withdrawn, rejected.modified);
    assert.ok(rejected.withdrawn);
    assert.deepEqual(rejected.configurations, []);
    assert.deepEqual(rejected.productKeys, []);
  });

  it('reads a feed file item ({"cve": {…}}) as the record itself, with the same digest as its content', () => {
    const cve = record('CVE-2021/CVE-2021-34xx/CVE-2021-3448.json');
    const item = read({ cve });
    assert.equal(item.id, 'CVE-2021-3448');
    assert.deepEqual(item.productKeys, read(cve).productKeys);
  });

  it('takes the first secondary CVSS when there is no primary one, and never a vector that does not parse', () => {
    const metric = (type: string, vector: string, source = 'cna@example.org') => ({ type, source, cvssData: { vectorString: vector } });
    assert.deepEqual(
      nvdCvss({
        cvssMetricV40: [metric('Secondary', 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N')],
        cvssMetricV31: [metric('Secondary', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'other@example.org')],
      }),
      {
        score: 9.3,
        vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
        source: 'cna@example.org',
        primary: false,
      },
    );
    assert.equal(
      nvdCvss({
        cvssMetricV40: [metric('Secondary', 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N')],
        cvssMetricV31: [metric('Primary', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'nvd@nist.gov')],
      })?.source,
      'nvd@nist.gov',
    );
    assert.equal(nvdCvss({ cvssMetricV31: [metric('Primary', 'CVSS:3.1/AV:X/garbage')] }), null);
    assert.equal(nvdCvss(undefined), null);
  });

  it('refuses a record whose fields matching uses are malformed, naming the field', () => {
    const base = record('CVE-2021/CVE-2021-34xx/CVE-2021-3448.json');
    const broken = (change: (r: Record<string, any>) => void) => {
      const copy = structuredClone(base) as Record<string, any>;
      change(copy);
      return copy;
    };
    const cases: Array<[unknown, RegExp]> = [
      [[], /the record must be a JSON object/],
      [broken((r) => (r.id = 'GHSA-xxxx')), /id must be a CVE id/],
      [broken((r) => (r.configurations = {})), /configurations must be an array/],
      [broken((r) => (r.configurations[0].operator = 'XOR')), /configurations\[0\]\.operator must be AND or OR/],
      [broken((r) => delete r.configurations[0].nodes[0].cpeMatch[0].vulnerable), /cpeMatch\[0\]\.vulnerable must be true or false/],
      [
        broken((r) => (r.configurations[0].nodes[0].cpeMatch[0].criteria = 'cpe:/a:x:y')),
        /cpeMatch\[0\]\.criteria must be a CPE 2\.3 name/,
      ],
      [
        broken((r) => (r.configurations[0].nodes[0].cpeMatch[0].versionEndExcluding = 2.85)),
        /versionEndExcluding must be a non-empty string/,
      ],
      [broken((r) => (r.configurations[0].nodes[0].negate = 'no')), /nodes\[0\]\.negate must be true or false/],
      [broken((r) => (r.vulnStatus = 3)), /vulnStatus must be a string/],
    ];
    for (const [value, why] of cases) assert.throws(() => read(value), why);
  });
});
