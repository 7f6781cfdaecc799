import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CATALOGUE_VERSION,
  checkFields,
  formFields,
  missingFields,
  recipient,
  reportText,
  type ReportFields,
} from '../../src/cases/report-catalogue.js';

const COMMON = [
  'kind',
  'title',
  'summary',
  'manufacturer_name',
  'manufacturer_address',
  'manufacturer_contact_email',
  'member_state',
  'product_name',
  'affected_versions',
  'markets',
  'aware_at',
];

describe('field catalogue', () => {
  it('early warning: the common fields; an incident adds the suspected malicious act', () => {
    assert.deepEqual(missingFields('early_warning', 'vulnerability', {}), COMMON);
    assert.deepEqual(missingFields('early_warning', 'incident', {}), [...COMMON, 'suspected_malicious_act']);
  });

  it('notification adds nature, measures and TLP', () => {
    assert.deepEqual(missingFields('notification', 'vulnerability', {}), [
      ...COMMON,
      'nature',
      'corrective_measures',
      'user_measures',
      'tlp',
    ]);
    assert.deepEqual(missingFields('notification', 'incident', {}), [
      ...COMMON,
      'suspected_malicious_act',
      'nature',
      'corrective_measures',
      'user_measures',
      'tlp',
    ]);
  });

  it('final report: vulnerability needs the update and its date, incident the root cause and the mitigations', () => {
    const tail = ['corrective_measures', 'user_measures', 'tlp', 'description', 'severity', 'impact'];
    assert.deepEqual(missingFields('final', 'vulnerability', {}), [...COMMON, ...tail, 'remediation', 'remediation_available_at']);
    assert.deepEqual(missingFields('final', 'incident', {}), [...COMMON, ...tail, 'threat_or_root_cause', 'remediation']);
    assert.ok(
      formFields('final', 'vulnerability').some((f) => f.key === 'threat_or_root_cause' && !f.required),
      'the malicious actor is optional for a vulnerability',
    );
    assert.ok(!formFields('final', 'vulnerability').some((f) => f.key === 'suspected_malicious_act'));
  });

  it('intermediate report: identification and the status update', () => {
    assert.deepEqual(missingFields('intermediate', 'vulnerability', {}), [...COMMON.filter((k) => k !== 'summary'), 'status_update']);
  });

  it('blank values and empty lists count as missing', () => {
    const values: ReportFields = Object.fromEntries(COMMON.map((k) => [k, 'x']));
    assert.deepEqual(missingFields('early_warning', 'vulnerability', { ...values, title: '  ', affected_versions: [] }), [
      'title',
      'affected_versions',
    ]);
  });

  it('checks and normalises values, naming every bad field at once', () => {
    const ok = checkFields('notification', 'incident', {
      tlp: 'amber+strict',
      member_state: 'de',
      markets: 'de, fr',
      cve_ids: 'cve-2026-12345',
      suspected_malicious_act: 'Unknown',
      aware_at: '2026-03-29T03:00:00+02:00',
      affected_versions: '2.4.1, 2.4.2',
    });
    assert.deepEqual(ok.errors, []);
    assert.deepEqual(ok.fields, {
      tlp: 'AMBER+STRICT',
      member_state: 'DE',
      markets: ['DE', 'FR'],
      cve_ids: ['CVE-2026-12345'],
      suspected_malicious_act: 'unknown',
      aware_at: '2026-03-29T01:00:00.000Z',
      affected_versions: ['2.4.1', '2.4.2'],
    });
    const bad = checkFields('early_warning', 'vulnerability', {
      tlp: 'RED',
      member_state: 'UK',
      manufacturer_contact_email: 'nobody',
      markets: 'DE,XX',
      status_update: 'x',
    });
    assert.equal(bad.errors.length, 5);
    assert.match(bad.errors.join('\n'), /^tlp: not a field of the early warning report/m);
    assert.match(bad.errors.join('\n'), /^member_state: "UK" is not one of the 27 Member States/m);
    assert.match(bad.errors.join('\n'), /^manufacturer_contact_email: "nobody" is not an e-mail address/m);
    assert.match(bad.errors.join('\n'), /^markets: not Member States: XX/m);
    assert.match(bad.errors.join('\n'), /^status_update: not a field of the early warning report/m);
  });

  it('plain text follows the form order and names the coordinating CSIRT and ENISA', () => {
    assert.equal(recipient('DE'), 'the CSIRT designated as coordinator of DE, and ENISA');
    const text = reportText({
      stage: 'notification',
      seq: 0,
      kind: 'vulnerability',
      incidentNumber: 7,
      fields: {
        kind: 'vulnerability',
        title: 'Router RCE',
        member_state: 'DE',
        affected_versions: ['2.4.1', '2.4.2'],
        nature: 'line one\nline two',
      },
    });
    assert.match(text, /^Vulnerability\/incident notification — case 7/);
    assert.match(text, /^To: the CSIRT designated as coordinator of DE, and ENISA$/m);
    assert.match(text, new RegExp(`^Field catalogue: ${CATALOGUE_VERSION}$`, 'm'));
    assert.match(text, /^Affected versions:\n {2}2\.4\.1, 2\.4\.2$/m);
    assert.match(text, /^General nature of the exploit and of the vulnerability:\n {2}line one\n {2}line two$/m);
    assert.match(text, /^Summary:\n {2}\(MISSING — required\)$/m);
    assert.match(text, /^Product class \(Annex III \/ IV\):\n {2}\(not given\)$/m);
    const labels = text
      .split('\n')
      .filter((l) => l.endsWith(':'))
      .map((l) => l.slice(0, -1));
    const expected = formFields('notification', 'vulnerability').map((f) =>
      typeof f.label === 'string' ? f.label : f.label.vulnerability,
    );
    assert.deepEqual(labels, expected);
  });
});
