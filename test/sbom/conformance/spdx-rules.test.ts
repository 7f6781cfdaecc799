import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkConformance, type ConformanceReport } from '../../../src/sbom/conformance/conformance.js';
import { element, SPDX3_NS, trSpdx3 } from './tr-documents.js';

// SPDX 3.0.1 read as its JSON-LD schema defines it, and SPDX 2 below the TR's floor.

const tr = (doc: any, specVersion = '3.0.1') => checkConformance(doc, { kind: 'spdx3', specVersion }, 'bsi-tr-03183-2-v2.1');
const field = (report: ConformanceReport, id: string) => report.components.fields.find((f) => f.field === id)!;
const whys = (report: ConformanceReport, id: string) => field(report, id).examples.map((e) => `${e.name}: ${e.why}`);

describe('TR-03183-2 on SPDX 3.0.1', () => {
  it('the conformant document conforms, the described package counted and logical', () => {
    const report = tr(trSpdx3(2));
    assert.deepEqual([report.conforms, report.missing_required, report.findings], [true, [], []]);
    assert.deepEqual([report.components.total, report.components.conforming], [3, 3]);
    assert.ok(report.document.every((d) => d.ok));
    const ntia = checkConformance(trSpdx3(2), { kind: 'spdx3', specVersion: '3.0.1' }, 'ntia-minimum');
    assert.equal(ntia.conforms, true, JSON.stringify(ntia.missing_required));
  });

  it('creator: createdBy / originatedBy agents with an email or URL identifier; a name alone does not count', () => {
    const doc = trSpdx3(2);
    const acme = element(doc, 'acme');
    acme.externalIdentifier = [];
    assert.deepEqual(tr(doc).missing_required, ['document.creator', 'component.creator']);
    assert.equal(whys(tr(doc), 'component.creator')[0], 'app: creator is a name, not an e-mail or URL');
    acme.externalIdentifier = [{ type: 'ExternalIdentifier', externalIdentifierType: 'other', identifier: 'https://acme.example' }];
    assert.equal(tr(doc).conforms, true, 'a URL identifier counts');
    delete element(doc, 'pkg-1').originatedBy;
    assert.deepEqual(whys(tr(doc), 'component.creator'), ['lib-1: no originatedBy']);
  });

  it('licences: hasConcludedLicense to a LicenseExpression; NOASSERTION and free text refused', () => {
    const doc = trSpdx3(3);
    element(doc, 'lic-mit').simplelicensing_licenseExpression = 'NOASSERTION';
    element(doc, 'lic-apache').simplelicensing_licenseExpression = 'Apache License, Version 2.0';
    const report = tr(doc);
    assert.deepEqual(whys(report, 'component.distribution_licences'), [
      'app: licence "Apache License, Version 2.0" is not an SPDX identifier or expression',
      'lib-0: licence NOASSERTION',
      'lib-1: licence NOASSERTION',
      'lib-2: licence NOASSERTION',
    ]);
    element(doc, 'lic-mit').simplelicensing_licenseExpression = 'LicenseRef-acme OR GPL-3.0-or-later WITH GCC-exception-3.1';
    element(doc, 'lic-apache').simplelicensing_licenseExpression = 'Apache-2.0';
    assert.equal(tr(doc).conforms, true);
    doc['@graph'] = doc['@graph'].filter((n: any) => n.spdxId !== `${SPDX3_NS}/pkg-0-conc`);
    assert.deepEqual(whys(tr(doc), 'component.distribution_licences'), ['lib-0: no hasConcludedLicense relationship']);
  });

  it('SHA-512, filename and the file properties come from the distribution software_File', () => {
    const doc = trSpdx3(3);
    element(doc, 'pkg-0-file').verifiedUsing = [{ type: 'Hash', algorithm: 'sha256', hashValue: 'cd'.repeat(32) }];
    element(doc, 'pkg-1-file').name = 'dist/lib-1.tgz';
    doc['@graph'] = doc['@graph'].filter((n: any) => n.spdxId !== `${SPDX3_NS}/pkg-2-dist`);
    const report = tr(doc);
    assert.deepEqual(whys(report, 'component.hash_sha512'), [
      'lib-0: only sha256',
      'lib-2: no distribution software_File (hasDistributionArtifact)',
    ]);
    assert.deepEqual(whys(report, 'component.filename'), [
      'lib-1: a path, not a filename ("dist/lib-1.tgz")',
      'lib-2: no distribution software_File (hasDistributionArtifact)',
    ]);
    for (const id of ['component.executable', 'component.archive', 'component.structured']) {
      assert.deepEqual(whys(report, id), ['lib-2: no distribution software_File (hasDistributionArtifact)'], id);
    }
  });

  it('dependencies: a dependsOn or contains relationship from it with completeness; a leaf points to NoneElement', () => {
    const doc = trSpdx3(3);
    delete element(doc, 'pkg-0-leaf').completeness;
    element(doc, 'pkg-1-leaf').relationshipType = 'contains';
    doc['@graph'] = doc['@graph'].filter((n: any) => n.spdxId !== `${SPDX3_NS}/pkg-2-leaf`);
    assert.deepEqual(whys(tr(doc), 'component.dependencies'), [
      'lib-0: dependency completeness not stated',
      'lib-2: no dependsOn or contains relationship',
    ]);
    element(doc, 'pkg-0-leaf').completeness = 'noAssertion';
    assert.equal(whys(tr(doc), 'component.dependencies')[0], 'lib-0: dependency completeness not stated');
  });

  it('a package that groups others and has a distribution file is fully described', () => {
    const doc = trSpdx3(1);
    doc['@graph'].push({
      type: 'Relationship',
      spdxId: `${SPDX3_NS}/app-dist`,
      creationInfo: '_:creationinfo',
      from: `${SPDX3_NS}/app`,
      to: [`${SPDX3_NS}/pkg-0-file`],
      relationshipType: 'hasDistributionArtifact',
    });
    assert.deepEqual(tr(doc).missing_required, [], 'its file gives it every field');
    element(doc, 'app-dist').to = [`${SPDX3_NS}/lic-mit`];
    assert.equal(tr(doc).conforms, true, 'a distribution artifact that is no software_File leaves it logical');
  });

  it('additional fields: the software_Sbom id, vcs, download location, purl, declared licence', () => {
    const doc = trSpdx3(1);
    const pkg = element(doc, 'pkg-0');
    delete pkg.externalRef;
    delete pkg.software_downloadLocation;
    delete pkg.software_packageUrl;
    doc['@graph'] = doc['@graph'].filter((n: any) => n.type !== 'software_Sbom' && n.spdxId !== `${SPDX3_NS}/pkg-0-decl`);
    element(doc, 'document').rootElement = [`${SPDX3_NS}/app`];
    const report = tr(doc);
    assert.equal(report.conforms, true);
    assert.equal(report.document.find((d) => d.field === 'document.sbom_uri')!.ok, false);
    assert.deepEqual(
      report.components.fields.filter((f) => f.level === 'additional').map((f) => [f.field, f.missing]),
      [
        // The logical subject is not asked for the URIs of a deployable form.
        ['component.source_uri', 1],
        ['component.deployable_uri', 1],
        ['component.other_identifiers', 1],
        ['component.original_licences', 2],
      ],
    );
  });

  it('vulnerabilities in the SBOM and SPDX 3.0.0 below the floor are findings', () => {
    const doc = trSpdx3(1);
    doc['@graph'].push({
      type: 'security_Vulnerability',
      spdxId: `${SPDX3_NS}/cve`,
      creationInfo: '_:creationinfo',
      name: 'CVE-2026-0001',
    });
    const report = tr(doc, '3.0.0');
    assert.deepEqual(report.findings, ['format_below_floor', 'vulnerabilities_in_sbom']);
    assert.deepEqual(report.missing_required, ['document.format']);
  });
});

describe('SPDX 2 under both profiles', () => {
  const spdx2 = (): any => ({
    spdxVersion: 'SPDX-2.3',
    SPDXID: 'SPDXRef-DOCUMENT',
    creationInfo: { created: '2026-11-01T10:00:00Z', creators: ['Tool: x-1.0', 'Organization: Acme GmbH'] },
    documentDescribes: ['SPDXRef-app'],
    packages: [
      {
        SPDXID: 'SPDXRef-app',
        name: 'app',
        versionInfo: '1.0.0',
        supplier: 'Organization: Acme',
        externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:generic/app@1.0.0' }],
      },
      { SPDXID: 'SPDXRef-lib', name: 'lib', versionInfo: 'NOASSERTION', supplier: 'NOASSERTION' },
    ],
    relationships: [{ spdxElementId: 'SPDXRef-lib', relationshipType: 'DEPENDENCY_OF', relatedSpdxElement: 'SPDXRef-app' }],
  });

  it('the TR gives SPDX 2 its format verdict alone: no component checks', () => {
    const report = checkConformance(spdx2(), { kind: 'spdx2', specVersion: '2.3' }, 'bsi-tr-03183-2-v2.1');
    assert.deepEqual(report, {
      profile: 'bsi-tr-03183-2-v2.1',
      profile_version: '2.1.0',
      conforms: false,
      missing_required: ['document.format'],
      document: [{ field: 'document.format', ok: false, level: 'required' }],
      components: { total: 2, conforming: 0, fields: [] },
      findings: ['format_below_floor'],
    });
  });

  it('NTIA checks it: supplier and version other than NOASSERTION, relationships on either side, Person/Organization author', () => {
    const doc = spdx2();
    const report = checkConformance(doc, { kind: 'spdx2', specVersion: '2.3' }, 'ntia-minimum');
    assert.deepEqual(report.missing_required, ['component.supplier', 'component.version', 'component.other_identifiers']);
    assert.deepEqual(
      report.components.fields.map((f) => [f.field, f.examples.map((e) => e.why)]),
      [
        ['component.supplier', ['supplier NOASSERTION']],
        ['component.name', []],
        ['component.version', ['version NOASSERTION']],
        ['component.dependencies', []],
        ['component.other_identifiers', ['no purl, CPE or SWID']],
      ],
    );
    doc.creationInfo.creators = ['Tool: x-1.0'];
    doc.relationships = [];
    const again = checkConformance(doc, { kind: 'spdx2', specVersion: '2.3' }, 'ntia-minimum');
    assert.deepEqual(again.document, [
      { field: 'document.timestamp', ok: true, level: 'required' },
      { field: 'document.author', ok: false, level: 'required' },
    ]);
    assert.equal(again.missing_required[0], 'document.author');
    assert.ok(again.missing_required.includes('component.dependencies'));
  });
});
