import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Evidence, evidenceSentence } from '../../../../src/vulns/match/cpe/evidence.js';

// The evidence as the console and the CLI's text say it (firmware.md: "busybox 1.36.1 from the
// SBOM is in cpe:2.3:a:busybox:busybox ≤ 1.36.1").

const base: Evidence = {
  cpe: 'cpe:2.3:a:busybox:busybox:1.36.1:*:*:*:*:*:*:*',
  cpe_source: 'sbom',
  criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*',
  match_criteria_id: null,
  range: { end_including: '1.36.1' },
  comparison: {
    version: '1.36.1',
    version_from: 'cpe',
    sbom_version: null,
    compared_as: '1.36.1',
    stripped: [],
    order: 'upstream',
    checks: [{ op: '<=', against: '1.36.1', holds: true }],
  },
  confidence: 'exact',
  unbounded: false,
  conditional: false,
  condition: null,
};

describe('evidenceSentence', () => {
  it('says the spec’s own example', () => {
    assert.equal(evidenceSentence('busybox', base), 'busybox 1.36.1 from the SBOM is in cpe:2.3:a:busybox:busybox ≤ 1.36.1.');
  });

  it('names the vendor table and the CPE it made, and the decorations taken off', () => {
    const e: Evidence = {
      ...base,
      cpe: 'cpe:2.3:a:openssl:openssl:3.0.7:*:*:*:*:*:*:*',
      cpe_source: 'vendor_table',
      confidence: 'inferred',
      criteria: 'cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*',
      range: { start_including: '3.0.0', end_excluding: '3.0.8' },
      comparison: { ...base.comparison, version: '3.0.7-r0', compared_as: '3.0.7', stripped: ['-r0'] },
    };
    assert.equal(
      evidenceSentence('openssl', e),
      'openssl 3.0.7-r0 with its vendor from the vendor table is in cpe:2.3:a:openssl:openssl ≥ 3.0.0, < 3.0.8 (compared as 3.0.7, -r0 taken off; as cpe:2.3:a:openssl:openssl:3.0.7:*:*:*:*:*:*:*).',
    );
  });

  it('says when the CPE’s version was used over the SBOM’s, and a mapping', () => {
    const e: Evidence = {
      ...base,
      cpe_source: 'mapping',
      confidence: 'confirmed',
      comparison: { ...base.comparison, sbom_version: '1.36.0' },
    };
    assert.match(
      evidenceSentence('busybox', e),
      /through the CPE confirmed for its name .*\(the CPE's version, where the SBOM says 1\.36\.0; as cpe:2\.3/,
    );
  });

  it('says an unbounded criterion and a condition', () => {
    const e: Evidence = {
      ...base,
      criteria: 'cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*',
      range: null,
      unbounded: true,
      conditional: true,
      condition: 'only with cpe:2.3:h:tp-link:archer_c7:5.0',
    };
    assert.equal(
      evidenceSentence('busybox', e),
      'busybox 1.36.1 from the SBOM is named by cpe:2.3:a:busybox:busybox, which bounds no version; only with cpe:2.3:h:tp-link:archer_c7:5.0.',
    );
  });
});
