import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NvdConfiguration } from '../../../../src/vulns/match/cpe/configurations.js';
import { affected, component, evaluate, evidenceOf, nvdRecord } from './revision.js';

describe('which version a finding is made with (Readings)', () => {
  const record = nvdRecord('CVE-2021-42386').configurations!;

  it("uses the CPE's version when both are values, and says the SBOM's differed", () => {
    const c = component('b', 'cpe:2.3:a:busybox:busybox:1.33.0:*:*:*:*:*:*:*', '1.36.1');
    const comparison = evidenceOf(evaluate(record, [c]), 'b')!.comparison;
    assert.deepEqual([comparison.version, comparison.version_from, comparison.sbom_version], ['1.33.0', 'cpe', '1.36.1']);
  });

  it("uses the SBOM's version when the CPE's is ANY", () => {
    const c = component('b', 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', '1.33.0');
    assert.equal(evidenceOf(evaluate(record, [c]), 'b')!.comparison.version_from, 'sbom');
  });

  it('matches each of several CPEs, the evidence naming the one that matched', () => {
    const c = component('b', ['cpe:2.3:a:toybox_project:toybox:0.8:*:*:*:*:*:*:*', 'cpe:2.3:a:busybox:busybox:1.33.0:*:*:*:*:*:*:*']);
    assert.equal(evidenceOf(evaluate(record, [c]), 'b')!.cpe, 'cpe:2.3:a:busybox:busybox:1.33.0:*:*:*:*:*:*:*');
  });

  it('makes no finding from a version the order cannot read, and reports it', () => {
    const c = component('b', 'cpe:2.3:a:busybox:busybox:1.33.0+really1.32:*:*:*:*:*:*:*');
    const result = evaluate(record, [c]);
    assert.deepEqual(result.findings, []);
    assert.deepEqual(result.unordered, [
      {
        ref: 'b',
        cpe: 'cpe:2.3:a:busybox:busybox:1.33.0\\+really1.32:*:*:*:*:*:*:*',
        criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*',
        version: '1.33.0+really1.32',
      },
    ]);
  });

  it('still matches an exact version that neither side can order when the two are equal as text', () => {
    const config: NvdConfiguration[] = [
      { nodes: [{ cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:o:huawei:ar120-s_firmware:v200r005c20:*:*:*:*:*:*:*' }] }] },
    ];
    const c = (ref: string, version: string) => component(ref, `cpe:2.3:o:huawei:ar120-s_firmware:${version}:*:*:*:*:*:*:*`);
    const result = evaluate(config, [c('same', 'V200R005C20'), c('other', 'V200R005C30')]);
    assert.deepEqual(affected(result), ['same']);
    assert.equal(evidenceOf(result, 'same')!.comparison.order, 'literal');
    assert.equal(result.unordered[0]!.ref, 'other');
  });
});

describe('a CPE that gives vendor and product with part *', () => {
  it('takes the part of the criterion when the vendor table knows no part for the pair', () => {
    const config: NvdConfiguration[] = [
      { nodes: [{ cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:o:acme:widget:1.0:*:*:*:*:*:*:*' }] }] },
    ];
    assert.deepEqual(affected(evaluate(config, [component('w', 'cpe:2.3:*:acme:widget:1.0:*:*:*:*:*:*:*')])), ['w']);
  });
});

describe('the update attribute (Readings)', () => {
  const openssl = (ref: string, version: string, update = '*') =>
    component(ref, `cpe:2.3:a:openssl:openssl:${version}:${update}:*:*:*:*:*:*`);
  const exact = (criteria: string): NvdConfiguration[] => [{ nodes: [{ cpeMatch: [{ vulnerable: true, criteria }] }] }];

  it('matches every update of a version whose update is ANY: 1.0.2:* holds 1.0.2 and 1.0.2:beta2, not 1.0.2a', () => {
    const revision = [openssl('1.0.2', '1.0.2'), openssl('beta2', '1.0.2', 'beta2'), openssl('1.0.2a', '1.0.2a')];
    const result = evaluate(exact('cpe:2.3:a:openssl:openssl:1.0.2:*:*:*:*:*:*:*'), revision);
    assert.deepEqual(affected(result), ['1.0.2', 'beta2']);
    assert.deepEqual(evidenceOf(result, 'beta2')!.comparison.checks, [{ op: 'release', against: '1.0.2', holds: true }]);
  });

  it('matches only that update when the criterion names one', () => {
    const revision = [openssl('1.0.2', '1.0.2'), openssl('beta2', '1.0.2', 'beta2'), openssl('glued', '1.0.2-beta2')];
    assert.deepEqual(affected(evaluate(exact('cpe:2.3:a:openssl:openssl:1.0.2:beta2:*:*:*:*:*:*'), revision)), ['beta2', 'glued']);
  });

  it('reads version and update together inside a range: 1.0.2 + beta2 sorts before 1.0.2', () => {
    const below: NvdConfiguration[] = [
      {
        nodes: [{ cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*', versionEndExcluding: '1.0.2' }] }],
      },
    ];
    const result = evaluate(below, [openssl('beta2', '1.0.2', 'beta2'), openssl('1.0.2', '1.0.2')]);
    assert.deepEqual(affected(result), ['beta2']);
    assert.equal(evidenceOf(result, 'beta2')!.comparison.version, '1.0.2-beta2');
  });
});
