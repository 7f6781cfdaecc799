import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkConformance, type ConformanceReport } from '../../../src/sbom/conformance/conformance.js';
import { readSbomBytes } from '../../../src/sbom/parse/read-sbom.js';
import { trComponent, trCycloneDx } from './tr-documents.js';

// Each rule of "How the TR is read" (sbom-conformance.md) on a small CycloneDX document that
// meets every other item, so that each test fails without the rule it names.

const tr = (doc: any) => checkConformance(doc, { kind: 'cyclonedx', specVersion: doc.specVersion }, 'bsi-tr-03183-2-v2.1');
const ntia = (doc: any) => checkConformance(doc, { kind: 'cyclonedx', specVersion: doc.specVersion }, 'ntia-minimum');
const field = (report: ConformanceReport, id: string) => report.components.fields.find((f) => f.field === id)!;
const whys = (report: ConformanceReport, id: string) => field(report, id).examples.map((e) => `${e.name}: ${e.why}`);
const prop = (c: any, name: string, value: string | null) => {
  c.properties = c.properties.filter((p: any) => p.name !== name);
  if (value !== null) c.properties.push({ name, value });
};

describe('TR-03183-2 on CycloneDX: the conformant document', () => {
  it('is a valid CycloneDX 1.6 document that the upload reader reports as conforming, subject counted', () => {
    const summary = readSbomBytes(Buffer.from(JSON.stringify(trCycloneDx(2))));
    const [report, ntiaReport] = summary.conformance;
    assert.equal(summary.count, 2, 'the stored components exclude the subject');
    assert.deepEqual(
      { conforms: report!.conforms, missing: report!.missing_required, total: report!.components.total, ok: report!.components.conforming },
      { conforms: true, missing: [], total: 3, ok: 3 },
    );
    assert.equal(report!.profile_version, '2.1.0');
    assert.deepEqual(report!.document, [
      { field: 'document.format', ok: true, level: 'required' },
      { field: 'document.creator', ok: true, level: 'required' },
      { field: 'document.timestamp', ok: true, level: 'required' },
      { field: 'document.sbom_uri', ok: true, level: 'additional' },
    ]);
    assert.ok(report!.components.fields.every((f) => f.missing === 0 && f.examples.length === 0));
    assert.equal(ntiaReport!.conforms, true, JSON.stringify(ntiaReport!.missing_required));
  });
});

describe('TR-03183-2 on CycloneDX: how the TR is read', () => {
  it('creator: a URL or a contact e-mail of the manufacturer; a name alone, the supplier or the authors do not count', () => {
    const doc = trCycloneDx(3);
    doc.components[0].manufacturer = { name: 'Acme GmbH' };
    doc.components[1].manufacturer = { name: 'Acme GmbH', contact: [{ email: 'dev@acme.example' }] };
    delete doc.components[2].manufacturer;
    doc.components[2].supplier = { name: 'Acme', url: ['https://acme.example'] };
    doc.components[2].authors = [{ name: 'A. Dev', email: 'a@acme.example' }];
    const report = tr(doc);
    assert.deepEqual(whys(report, 'component.creator'), ['lib-0: creator is a name, not an e-mail or URL', 'lib-2: no manufacturer']);
    doc.metadata.manufacturer = { name: 'Acme GmbH' };
    doc.metadata.authors = [{ name: 'A. Dev', email: 'a@acme.example' }];
    const again = tr(doc);
    assert.equal(again.document.find((d) => d.field === 'document.creator')!.ok, false);
    assert.deepEqual(again.missing_required, ['document.creator', 'component.creator']);
  });

  it('distribution licences: acknowledgement concluded; an entry without acknowledgement is neither', () => {
    const doc = trCycloneDx(2);
    doc.components[0].licenses = [{ license: { id: 'MIT' } }];
    doc.components[1].licenses = [{ expression: 'MIT', acknowledgement: 'declared' }];
    const report = tr(doc);
    assert.deepEqual(whys(report, 'component.distribution_licences'), [
      'lib-0: no licence with acknowledgement concluded',
      'lib-1: no licence with acknowledgement concluded',
    ]);
    assert.deepEqual(whys(report, 'component.original_licences'), ['lib-0: no licence with acknowledgement declared']);
  });

  it('licences: NONE, NOASSERTION and free text are refused; LicenseRef and WITH exceptions are SPDX expressions', () => {
    const doc = trCycloneDx(6);
    const concluded = (entry: object) => [{ ...entry, acknowledgement: 'concluded' }];
    doc.components[0].licenses = concluded({ expression: 'NOASSERTION' });
    doc.components[1].licenses = concluded({ expression: 'NONE' });
    doc.components[2].licenses = [{ license: { name: 'Apache License 2.0', acknowledgement: 'concluded' } }];
    doc.components[3].licenses = concluded({ expression: 'GPL-2.0-only WITH Classpath-exception-2.0' });
    doc.components[4].licenses = [{ license: { name: 'LicenseRef-acme-proprietary', acknowledgement: 'concluded' } }];
    doc.components[5].licenses = concluded({ expression: '(MIT OR LicenseRef-acme) AND Apache-2.0' });
    const report = tr(doc);
    assert.deepEqual(whys(report, 'component.distribution_licences'), [
      'lib-0: licence NOASSERTION',
      'lib-1: licence NONE',
      'lib-2: licence "Apache License 2.0" is not an SPDX identifier or expression',
    ]);
    assert.equal(field(report, 'component.distribution_licences').missing, 3);
  });

  it('SHA-512 of the deployable form: in the distribution reference or the component hashes; SHA-256 alone is "only SHA-256"', () => {
    const doc = trCycloneDx(4);
    doc.components[0].externalReferences[0].hashes = [{ alg: 'SHA-256', content: 'cd'.repeat(32) }];
    doc.components[1].externalReferences[0].hashes = [];
    doc.components[1].hashes = [{ alg: 'SHA-512', content: 'ef'.repeat(64) }];
    doc.components[2].externalReferences[0].hashes = [];
    doc.components[3].externalReferences = [];
    doc.components[3].hashes = [
      { alg: 'SHA-1', content: '12'.repeat(20) },
      { alg: 'SHA3-512', content: '34'.repeat(64) },
    ];
    const report = tr(doc);
    assert.deepEqual(whys(report, 'component.hash_sha512'), ['lib-0: only SHA-256', 'lib-2: no hash', 'lib-3: only SHA-1, SHA3-512']);
  });

  it('filename: bsi:component:filename, a value with / or \\ (./x included) is a path', () => {
    const doc = trCycloneDx(4);
    prop(doc.components[0], 'bsi:component:filename', './lib-0.tgz');
    prop(doc.components[1], 'bsi:component:filename', 'C:\\libs\\lib-1.dll');
    prop(doc.components[2], 'bsi:component:filename', null);
    const report = tr(doc);
    assert.deepEqual(whys(report, 'component.filename'), [
      'lib-0: a path, not a filename ("./lib-0.tgz")',
      'lib-1: a path, not a filename ("C:\\\\libs\\\\lib-1.dll")',
      'lib-2: no bsi:component:filename property',
    ]);
  });

  it('executable, archive, structured: only the TR values count', () => {
    const doc = trCycloneDx(3);
    prop(doc.components[0], 'bsi:component:executable', 'yes');
    prop(doc.components[1], 'bsi:component:archive', 'no archive');
    prop(doc.components[1], 'bsi:component:structured', 'unstructured');
    prop(doc.components[1], 'bsi:component:executable', 'executable');
    prop(doc.components[2], 'bsi:component:archive', null);
    prop(doc.components[2], 'bsi:component:structured', 'Structured');
    const report = tr(doc);
    assert.deepEqual(whys(report, 'component.executable'), [
      'lib-0: bsi:component:executable is "yes", not "executable" or "non-executable"',
    ]);
    assert.deepEqual(whys(report, 'component.archive'), ['lib-2: no bsi:component:archive property']);
    assert.deepEqual(whys(report, 'component.structured'), [
      'lib-2: bsi:component:structured is "Structured", not "structured" or "unstructured"',
    ]);
    // A value is quoted short, whatever its length: the report is kept with the revision.
    prop(doc.components[0], 'bsi:component:executable', 'x'.repeat(100_000));
    const long = whys(tr(doc), 'component.executable')[0]!;
    assert.ok(long.length < 200, `${long.length} characters`);
    assert.match(long, /is "x{57}…", not/);
  });

  it('dependencies: an entry in dependencies[] and a composition other than not_specified that covers it', () => {
    const doc = trCycloneDx(3);
    doc.dependencies = doc.dependencies.filter((d: any) => d.ref !== 'pkg:npm/lib-2@1.0.2');
    doc.compositions = [
      { aggregate: 'not_specified' },
      { aggregate: 'incomplete_first_party_only', assemblies: ['app', 'pkg:npm/lib-0@1.0.0'] },
    ];
    const report = tr(doc);
    assert.deepEqual(whys(report, 'component.dependencies'), ['lib-1: dependency completeness not stated', 'lib-2: no dependencies entry']);
    doc.compositions.push({ aggregate: 'unknown', dependencies: ['pkg:npm/lib-1@1.0.1'] });
    assert.deepEqual(whys(tr(doc), 'component.dependencies'), ['lib-2: no dependencies entry']);
  });

  it('a composition that names no element covers the whole document; not_specified covers nothing', () => {
    const doc = trCycloneDx(2);
    doc.compositions = [{ aggregate: 'not_specified' }];
    assert.equal(field(tr(doc), 'component.dependencies').missing, 3);
    doc.compositions = [{ aggregate: 'incomplete' }];
    assert.equal(field(tr(doc), 'component.dependencies').missing, 0);
    delete doc.compositions;
    assert.deepEqual(tr(doc).missing_required, ['component.dependencies']);
  });

  it('a logical component (it groups others, no distribution reference) needs only the logical subset', () => {
    const doc = trCycloneDx(1);
    // The subject "app" groups lib-0 and has no filename, hash or properties: logical, conforming.
    assert.equal(tr(doc).conforms, true);
    doc.metadata.component.externalReferences = [{ type: 'distribution', url: 'https://acme.example/app-1.0.0.bin' }];
    const described = tr(doc);
    assert.deepEqual(described.missing_required, [
      'component.filename',
      'component.hash_sha512',
      'component.executable',
      'component.archive',
      'component.structured',
    ]);
    assert.deepEqual(whys(described, 'component.filename'), ['app: no bsi:component:filename property']);
    // Nesting groups too: a component with components of its own and no distribution reference.
    const nested = trCycloneDx(1);
    const group = { ...trComponent('group', '2.0.0'), externalReferences: [], properties: [], components: [trComponent('inner', '1.0.0')] };
    nested.components.push(group);
    nested.dependencies.push({ ref: group['bom-ref'], dependsOn: [] }, { ref: 'pkg:npm/inner@1.0.0', dependsOn: [] });
    assert.equal(tr(nested).conforms, true, JSON.stringify(tr(nested).missing_required));
    assert.equal(tr(nested).components.total, 4);
    // A logical component still needs its creator, version, licences and dependencies.
    delete nested.components[1].manufacturer;
    assert.deepEqual(tr(nested).missing_required, ['component.creator']);
  });

  it('the subject is a component: counted, checked, named in examples', () => {
    const doc = trCycloneDx(2);
    delete doc.metadata.component.version;
    const report = tr(doc);
    assert.equal(report.components.total, 3);
    assert.equal(report.components.conforming, 2);
    assert.deepEqual(field(report, 'component.version').examples, [{ ref: 'app', name: 'app', version: '', why: 'no version' }]);
  });

  it('below the floor: CycloneDX 1.5 is checked with the 1.6 mappings, document.format and format_below_floor first', () => {
    const doc = trCycloneDx(1);
    doc.specVersion = '1.5';
    doc.vulnerabilities = [{ id: 'CVE-2026-0001' }];
    const report = tr(doc);
    assert.equal(report.missing_required[0], 'document.format');
    assert.deepEqual(report.findings, ['format_below_floor', 'vulnerabilities_in_sbom']);
    assert.deepEqual(report.document[0], { field: 'document.format', ok: false, level: 'required' });
    assert.equal(report.conforms, false);
    // A 1.5 document that cannot say manufacturer (its 1.5 form) misses the creator.
    delete doc.components[0].manufacturer;
    assert.ok(tr(doc).missing_required.includes('component.creator'));
    doc.specVersion = '1.7';
    delete doc.vulnerabilities;
    doc.components[0].manufacturer = { url: ['https://acme.example'] };
    assert.equal(tr(doc).conforms, true, 'CycloneDX 1.7 is above the floor');
  });

  it('vulnerabilities in the SBOM are a finding that fails conformance, not a missing field', () => {
    const doc = trCycloneDx(1);
    doc.vulnerabilities = [{ id: 'CVE-2026-0001', affects: [{ ref: 'pkg:npm/lib-0@1.0.0' }] }];
    const report = tr(doc);
    assert.deepEqual([report.conforms, report.missing_required, report.findings], [false, [], ['vulnerabilities_in_sbom']]);
    assert.deepEqual(ntia(doc).findings, [], 'the NTIA elements say nothing of it');
  });

  it('at most 5 examples per field, each with why; the count is of every component', () => {
    const doc = trCycloneDx(8);
    for (const c of doc.components) c.version = 'NOASSERTION';
    const f = field(tr(doc), 'component.version');
    assert.equal(f.missing, 8);
    assert.equal(f.examples.length, 5);
    assert.ok(f.examples.every((e) => e.why === 'version NOASSERTION' && e.ref.startsWith('pkg:npm/lib-')));
  });

  it('missing_required lists each required id once, in the order of the spec’s field ids', () => {
    const doc = trCycloneDx(2);
    delete doc.metadata.timestamp;
    delete doc.components[1].manufacturer;
    prop(doc.components[0], 'bsi:component:structured', null);
    doc.components[1].licenses = [];
    doc.components[0].name = ' ';
    delete doc.metadata.manufacturer;
    assert.deepEqual(tr(doc).missing_required, [
      'document.creator',
      'document.timestamp',
      'component.creator',
      'component.name',
      'component.distribution_licences',
      'component.structured',
    ]);
  });

  it('additional fields are counted, never deciding', () => {
    const doc = trCycloneDx(2);
    delete doc.serialNumber;
    for (const c of doc.components) {
      delete c.purl;
      c.licenses = c.licenses.filter((l: any) => l.license.acknowledgement !== 'declared');
      c.externalReferences = [];
      c.hashes = [{ alg: 'SHA-512', content: 'ab'.repeat(64) }];
    }
    const report = tr(doc);
    assert.deepEqual([report.conforms, report.missing_required], [true, []]);
    assert.equal(report.document.find((d) => d.field === 'document.sbom_uri')!.ok, false);
    for (const id of ['component.source_uri', 'component.deployable_uri', 'component.other_identifiers', 'component.original_licences']) {
      assert.equal(field(report, id).level, 'additional');
      assert.equal(field(report, id).missing, 2, id);
    }
  });
});

describe('NTIA minimum elements on CycloneDX', () => {
  it('supplier, identifiers, dependencies named on either side, author and timestamp', () => {
    const doc = trCycloneDx(3);
    delete doc.components[0].supplier;
    delete doc.components[0].manufacturer;
    doc.components[1].supplier = undefined;
    doc.components[1].publisher = 'Acme';
    delete doc.components[2].purl;
    doc.dependencies = [{ ref: 'app', dependsOn: ['pkg:npm/lib-0@1.0.0', 'pkg:npm/lib-1@1.0.1'] }];
    delete doc.metadata.timestamp;
    const report = ntia(doc);
    assert.deepEqual(report.missing_required, [
      'document.timestamp',
      'component.supplier',
      'component.dependencies',
      'component.other_identifiers',
    ]);
    assert.deepEqual(whys(report, 'component.supplier'), ['lib-0: no supplier, manufacturer or publisher']);
    assert.deepEqual(whys(report, 'component.dependencies'), ['lib-2: named in no dependencies entry']);
    assert.deepEqual(report.document, [
      { field: 'document.timestamp', ok: false, level: 'required' },
      { field: 'document.author', ok: true, level: 'required' },
    ]);
    assert.equal(report.profile_version, '2021-07-12');
  });
});
