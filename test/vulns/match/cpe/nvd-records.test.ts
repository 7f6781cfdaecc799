import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { affected, component, evaluate, evidenceOf, nvdRecord } from './revision.js';

// Real NVD records (test/fixtures/firmware/nvd, from the fkie-cad/nvd-json-data-feeds mirror)
// against firmware components written as Yocto, Buildroot and vendor SBOMs write them.

const busybox = (version: string) => component(`busybox ${version}`, `cpe:2.3:a:busybox:busybox:${version}:*:*:*:*:*:*:*`);
const configurations = (id: string) => nvdRecord(id).configurations ?? [];

describe('CVE-2021-42386: busybox 1.16.0 to 1.33.1 inclusive', () => {
  const record = configurations('CVE-2021-42386');

  it('affects 1.33.0 and 1.33.1, not 1.36.1 nor 1.15.0', () => {
    const result = evaluate(record, [busybox('1.33.0'), busybox('1.33.1'), busybox('1.36.1'), busybox('1.15.0'), busybox('1.16.0')]);
    assert.deepEqual(affected(result), ['busybox 1.16.0', 'busybox 1.33.0', 'busybox 1.33.1']);
  });

  it('says why, with both versions', () => {
    const evidence = evidenceOf(evaluate(record, [busybox('1.33.0')]), 'busybox 1.33.0');
    assert.deepEqual(evidence, {
      cpe: 'cpe:2.3:a:busybox:busybox:1.33.0:*:*:*:*:*:*:*',
      cpe_source: 'sbom',
      criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*',
      match_criteria_id: '6A24DBA4-B67F-4947-8FF0-8C88257814EE',
      range: { start_including: '1.16.0', end_including: '1.33.1' },
      comparison: {
        version: '1.33.0',
        version_from: 'cpe',
        sbom_version: null,
        compared_as: '1.33.0',
        stripped: [],
        order: 'upstream',
        checks: [
          { op: '>=', against: '1.16.0', holds: true },
          { op: '<=', against: '1.33.1', holds: true },
        ],
      },
      confidence: 'exact',
      unbounded: false,
      conditional: false,
      condition: null,
    });
  });

  it("reads Yocto's vendor-less CPE through the vendor table, and strips its -r0", () => {
    const yocto = component('busybox', 'cpe:2.3:*:*:busybox:1.33.1-r0:*:*:*:*:*:*:*');
    const evidence = evidenceOf(evaluate(record, [yocto]), 'busybox')!;
    assert.equal(evidence.cpe, 'cpe:2.3:a:busybox:busybox:1.33.1-r0:*:*:*:*:*:*:*');
    assert.equal(evidence.cpe_source, 'vendor_table');
    assert.equal(evidence.confidence, 'inferred');
    assert.deepEqual([evidence.comparison.compared_as, evidence.comparison.stripped], ['1.33.1', ['-r0']]);
  });

  it('is not matched by the Fedora configuration: a busybox is no operating system', () => {
    const result = evaluate(record, [busybox('1.36.1'), component('fedora', 'cpe:2.3:o:fedoraproject:fedora:34:*:*:*:*:*:*:*')]);
    assert.deepEqual(affected(result), ['fedora']);
  });
});

describe('CVE-2021-3448: dnsmasq before 2.85', () => {
  const record = configurations('CVE-2021-3448');
  const dnsmasq = (version: string) => component(`dnsmasq ${version}`, `cpe:2.3:a:thekelleys:dnsmasq:${version}:*:*:*:*:*:*:*`);

  it('affects 2.84 and the 2.85 release candidates, not 2.85', () => {
    const result = evaluate(record, [dnsmasq('2.84'), dnsmasq('2.85rc2'), dnsmasq('2.85'), dnsmasq('2.86test3')]);
    assert.deepEqual(affected(result), ['dnsmasq 2.84', 'dnsmasq 2.85rc2']);
  });

  it("takes OpenWrt's 2.84-1 as 2.84 and records the -1 it dropped", () => {
    const openwrt = component('dnsmasq', 'cpe:2.3:a:thekelleys:dnsmasq:*:*:*:*:*:*:*:*', '2.84-1');
    const evidence = evidenceOf(evaluate(record, [openwrt]), 'dnsmasq')!;
    assert.deepEqual(
      [evidence.comparison.version_from, evidence.comparison.compared_as, evidence.comparison.stripped],
      ['sbom', '2.84', ['-1']],
    );
  });
});

describe('CVE-2023-38546: the NVD names libcurl, not curl', () => {
  const record = configurations('CVE-2023-38546');

  it("finds it in a vendor-less curl through the vendor table's haxx:libcurl", () => {
    const evidence = evidenceOf(evaluate(record, [component('curl', 'cpe:2.3:*:*:curl:8.3.0:*:*:*:*:*:*:*')]), 'curl')!;
    assert.equal(evidence.cpe, 'cpe:2.3:a:haxx:libcurl:8.3.0:*:*:*:*:*:*:*');
    assert.equal(evidence.confidence, 'inferred');
  });

  it('matches haxx:libcurl in [7.9.1, 8.4.0) only', () => {
    const libcurl = (v: string) => component(`libcurl ${v}`, `cpe:2.3:a:haxx:libcurl:${v}:*:*:*:*:*:*:*`);
    const result = evaluate(record, [libcurl('7.9.0'), libcurl('7.9.1'), libcurl('8.3.0'), libcurl('8.4.0')]);
    assert.deepEqual(affected(result), ['libcurl 7.9.1', 'libcurl 8.3.0']);
  });

  it('matches an SBOM CPE as given: haxx:curl is not haxx:libcurl', () => {
    assert.deepEqual(affected(evaluate(record, [component('curl', 'cpe:2.3:a:haxx:curl:8.3.0:*:*:*:*:*:*:*')])), []);
  });
});

describe('CVE-2022-30552: u-boot 2022.01 with update NA', () => {
  const record = configurations('CVE-2022-30552');
  const uboot = (ref: string, cpe: string, version?: string) => component(ref, cpe, version);

  it('affects 2022.01 without an update, not its release candidates nor other releases', () => {
    const result = evaluate(record, [
      uboot('plain', 'cpe:2.3:a:denx:u-boot:2022.01:*:*:*:*:*:*:*'),
      uboot('na', 'cpe:2.3:a:denx:u-boot:2022.01:-:*:*:*:*:*:*'),
      uboot('tag', 'cpe:2.3:a:denx:u-boot:*:*:*:*:*:*:*:*', 'v2022.01'),
      uboot('rc in version', 'cpe:2.3:a:denx:u-boot:2022.01-rc4:*:*:*:*:*:*:*'),
      uboot('rc in update', 'cpe:2.3:a:denx:u-boot:2022.01:rc4:*:*:*:*:*:*'),
      uboot('next', 'cpe:2.3:a:denx:u-boot:2022.04:*:*:*:*:*:*:*'),
    ]);
    assert.deepEqual(affected(result), ['na', 'plain', 'tag']);
    assert.deepEqual(evidenceOf(result, 'tag')!.comparison.stripped, ['v']);
    assert.deepEqual(evidenceOf(result, 'plain')!.comparison.checks, [{ op: '=', against: '2022.01', holds: true }]);
  });
});

describe('CVE-2023-38408: OpenSSH before 9.3, and 9.3 and 9.3p1 by their update field', () => {
  const record = configurations('CVE-2023-38408');
  const openssh = (ref: string, version: string, update = '*') =>
    component(ref, `cpe:2.3:a:openbsd:openssh:${version}:${update}:*:*:*:*:*:*`);

  it('reads the update with the version: 9.3p1 is 9.3 update p1, 9.3p2 is neither', () => {
    const result = evaluate(record, [
      openssh('9.2p1', '9.2p1'),
      openssh('9.3', '9.3'),
      openssh('9.3p1 glued', '9.3p1'),
      openssh('9.3 + p1', '9.3', 'p1'),
      openssh('9.3p2 glued', '9.3p2'),
      openssh('9.3 + p2', '9.3', 'p2'),
      openssh('9.4p1', '9.4p1'),
    ]);
    assert.deepEqual(affected(result), ['9.2p1', '9.3', '9.3 + p1', '9.3p1 glued']);
    assert.equal(evidenceOf(result, '9.3p1 glued')!.criteria, 'cpe:2.3:a:openbsd:openssh:9.3:p1:*:*:*:*:*:*');
    assert.deepEqual(evidenceOf(result, '9.2p1')!.comparison.checks, [{ op: '<', against: '9.3', holds: true }]);
  });
});

describe('CVE-2023-0286: OpenSSL letters in the ranges', () => {
  const record = configurations('CVE-2023-0286');
  const openssl = (version: string) => component(version, `cpe:2.3:a:openssl:openssl:${version}:*:*:*:*:*:*:*`);

  it('orders 1.0.2zf before 1.0.2zg, and 1.1.1s before 1.1.1t', () => {
    const versions = ['1.0.1u', '1.0.2', '1.0.2k', '1.0.2zf', '1.0.2zg', '1.1.0l', '1.1.1s', '1.1.1t', '1.1.1w', '3.0.7', '3.0.8'];
    assert.deepEqual(affected(evaluate(record, versions.map(openssl))), ['1.0.2', '1.0.2k', '1.0.2zf', '1.1.1s', '3.0.7']);
  });

  it("reads a Debian package's version as its upstream one", () => {
    const debian = component('libssl', 'cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*', '1.1.1n-0+deb11u4');
    const evidence = evidenceOf(evaluate(record, [debian]), 'libssl')!;
    assert.deepEqual([evidence.comparison.compared_as, evidence.comparison.stripped], ['1.1.1n', ['-0+deb11u4']]);
  });
});

describe('CVE-2018-15654: a rejected record without configurations', () => {
  it('finds nothing', () => {
    const record = nvdRecord('CVE-2018-15654');
    assert.equal(record.vulnStatus, 'Rejected');
    assert.deepEqual(evaluate(record.configurations ?? [], [busybox('1.33.0')]).findings, []);
  });
});
