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
