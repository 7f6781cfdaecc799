import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csafAdvisory, type AdvisoryInput } from '../../src/cases/csaf-advisory.js';
import { csafErrors } from '../helpers/csaf.js';

const input: AdvisoryInput = {
  orgSlug: 'acme',
  publisherName: 'Acme Devices GmbH',
  contactEmail: 'psirt@acme.example',
  incidentNumber: 3,
  kind: 'vulnerability',
  title: 'Router 100: remote code execution in httpd',
  summary: 'A crafted request to the web interface runs code as root.',
  productName: 'Router 100',
  versions: ['2.4.1', '2.4.2'],
  cves: ['CVE-2026-12345'],
  userMeasures: 'Disable remote administration until the update is installed.',
  fix: null,
  initialReleaseDate: '2026-11-22T10:00:00.000Z',
  now: '2026-11-22T10:00:00.000Z',
};

describe('CSAF 2.0 advisory (14(8))', () => {
  it('is valid against the official schema and the mandatory tests, before a fix', async () => {
    const doc = csafAdvisory(input) as any;
    assert.deepEqual(await csafErrors(doc), []);
    assert.equal(doc.document.category, 'csaf_security_advisory');
    assert.equal(doc.document.publisher.namespace, 'https://acme.example');
    assert.deepEqual(
      doc.vulnerabilities.map((v: any) => v.cve),
      ['CVE-2026-12345'],
    );
    assert.deepEqual(doc.vulnerabilities[0].product_status.known_affected, ['CSAFPID-0001', 'CSAFPID-0002']);
    const versions = doc.product_tree.branches[0].branches[0].branches.map((b: any) => b.product.name);
    assert.deepEqual(versions, ['Router 100 2.4.1', 'Router 100 2.4.2']);
    assert.deepEqual(
      doc.vulnerabilities[0].remediations.map((r: any) => r.category),
      ['mitigation'],
    );
  });

  it('after a fix it names the vendor fix with its date; without CVE or contact it is still valid', async () => {
    const doc = csafAdvisory({
      ...input,
      kind: 'incident',
      cves: [],
      contactEmail: null,
      fix: { availableAt: '2026-12-01T00:00:00.000Z', description: 'Firmware 2.4.3' },
    }) as any;
    assert.deepEqual(await csafErrors(doc), []);
    assert.equal(doc.vulnerabilities.length, 1);
    assert.equal(doc.vulnerabilities[0].cve, undefined);
    assert.deepEqual(doc.vulnerabilities[0].remediations[0], {
      category: 'vendor_fix',
      date: '2026-12-01T00:00:00.000Z',
      details: 'Firmware 2.4.3',
      product_ids: ['CSAFPID-0001', 'CSAFPID-0002'],
    });
    assert.equal(doc.document.publisher.namespace, 'urn:cra-platform:org:acme');
  });

  it('the validator used here does reject a broken advisory', async () => {
    const doc = csafAdvisory(input) as any;
    delete doc.document.publisher.namespace;
    doc.vulnerabilities[0].product_status.known_affected = ['CSAFPID-9999'];
    const errors = await csafErrors(doc);
    assert.ok(
      errors.some((e) => /publisher/.test(e) && /namespace/.test(e)),
      errors.join('\n'),
    );
    assert.ok(
      errors.some((e) => /mandatoryTest_6_1_1 /.test(e)),
      'the undefined product id is caught by 6.1.1',
    );
  });
});
