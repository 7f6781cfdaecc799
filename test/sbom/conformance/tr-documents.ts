// Small documents that meet every item of TR-03183-2 v2.1 (and the NTIA minimum elements), for
// the tests to break one field at a time. A fresh copy per call.

const SHA512 = 'ab'.repeat(64);

/** A fully described CycloneDX 1.6 library, as a TR-conformant generator writes it. */
export function trComponent(name: string, version: string): any {
  const purl = `pkg:npm/${name}@${version}`;
  return {
    type: 'library',
    'bom-ref': purl,
    supplier: { name: 'Acme' },
    manufacturer: { name: 'Acme GmbH', url: ['https://acme.example'] },
    name,
    version,
    purl,
    licenses: [
      { license: { id: 'MIT', acknowledgement: 'concluded' } },
      // CycloneDX 1.6 takes either licence entries or one expression, not both.
      { license: { id: 'Apache-2.0', acknowledgement: 'declared' } },
    ],
    externalReferences: [
      { type: 'distribution', url: `https://registry.example/${name}-${version}.tgz`, hashes: [{ alg: 'SHA-512', content: SHA512 }] },
      { type: 'vcs', url: `https://git.example/${name}` },
    ],
    properties: [
      { name: 'bsi:component:filename', value: `${name}-${version}.tgz` },
      { name: 'bsi:component:executable', value: 'non-executable' },
      { name: 'bsi:component:archive', value: 'archive' },
      { name: 'bsi:component:structured', value: 'structured' },
    ],
  };
}

/** A CycloneDX 1.6 document of `count` libraries under a logical subject ("app"), every TR field present. */
export function trCycloneDx(count = 2): any {
  const components = Array.from({ length: count }, (_, i) => trComponent(`lib-${i}`, `1.0.${i}`));
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
    version: 1,
    metadata: {
      timestamp: '2026-11-01T10:00:00Z',
      manufacturer: { name: 'Acme GmbH', contact: [{ name: 'PSIRT', email: 'psirt@acme.example' }] },
      component: {
        type: 'application',
        'bom-ref': 'app',
        supplier: { name: 'Acme' },
        manufacturer: { name: 'Acme GmbH', url: ['https://acme.example'] },
        name: 'app',
        version: '1.0.0',
        purl: 'pkg:generic/acme/app@1.0.0',
        licenses: [
          { license: { id: 'Apache-2.0', acknowledgement: 'concluded' } },
          { license: { id: 'Apache-2.0', acknowledgement: 'declared' } },
        ],
      },
    },
    components,
    dependencies: [
      { ref: 'app', dependsOn: components.map((c) => c['bom-ref']) },
      ...components.map((c) => ({ ref: c['bom-ref'], dependsOn: [] })),
    ],
    compositions: [{ aggregate: 'complete' }],
  };
}

const NS = 'https://acme.example/spdx/app-1.0.0';

/** An SPDX 3.0.1 document of `count` packages under a logical subject, every TR field present. */
export function trSpdx3(count = 2): any {
  const info = '_:creationinfo';
  const el = (type: string, id: string, extra: object) => ({ type, spdxId: `${NS}/${id}`, creationInfo: info, ...extra });
  const graph: any[] = [
    { '@id': info, type: 'CreationInfo', specVersion: '3.0.1', created: '2026-11-01T10:00:00Z', createdBy: [`${NS}/acme`] },
    el('Organization', 'acme', {
      name: 'Acme GmbH',
      externalIdentifier: [{ type: 'ExternalIdentifier', externalIdentifierType: 'email', identifier: 'psirt@acme.example' }],
    }),
    el('simplelicensing_LicenseExpression', 'lic-mit', { simplelicensing_licenseExpression: 'MIT' }),
    el('simplelicensing_LicenseExpression', 'lic-apache', { simplelicensing_licenseExpression: 'Apache-2.0' }),
    el('software_Package', 'app', {
      name: 'app',
      software_packageVersion: '1.0.0',
      software_packageUrl: 'pkg:generic/acme/app@1.0.0',
      originatedBy: [`${NS}/acme`],
      suppliedBy: `${NS}/acme`,
    }),
    el('Relationship', 'app-licence', { from: `${NS}/app`, to: [`${NS}/lic-apache`], relationshipType: 'hasConcludedLicense' }),
  ];
  const deps: string[] = [];
  for (let i = 0; i < count; i++) {
    const p = `pkg-${i}`;
    deps.push(`${NS}/${p}`);
    graph.push(
      el('software_Package', p, {
        name: `lib-${i}`,
        software_packageVersion: `1.0.${i}`,
        software_packageUrl: `pkg:npm/lib-${i}@1.0.${i}`,
        software_downloadLocation: `https://registry.example/lib-${i}-1.0.${i}.tgz`,
        externalRef: [{ type: 'ExternalRef', externalRefType: 'vcs', locator: [`https://git.example/lib-${i}`] }],
        originatedBy: [`${NS}/acme`],
        suppliedBy: `${NS}/acme`,
      }),
      el('software_File', `${p}-file`, {
        name: `lib-${i}-1.0.${i}.tgz`,
        verifiedUsing: [{ type: 'Hash', algorithm: 'sha512', hashValue: SHA512 }],
        software_additionalPurpose: ['archive'],
      }),
      el('Relationship', `${p}-dist`, { from: `${NS}/${p}`, to: [`${NS}/${p}-file`], relationshipType: 'hasDistributionArtifact' }),
      el('Relationship', `${p}-conc`, { from: `${NS}/${p}`, to: [`${NS}/lic-mit`], relationshipType: 'hasConcludedLicense' }),
      el('Relationship', `${p}-decl`, { from: `${NS}/${p}`, to: [`${NS}/lic-mit`], relationshipType: 'hasDeclaredLicense' }),
      el('Relationship', `${p}-leaf`, { from: `${NS}/${p}`, to: ['NoneElement'], relationshipType: 'dependsOn', completeness: 'complete' }),
    );
  }
  graph.push(
    el('Relationship', 'app-deps', { from: `${NS}/app`, to: deps, relationshipType: 'dependsOn', completeness: 'complete' }),
    el('software_Sbom', 'sbom', { rootElement: [`${NS}/app`], software_sbomType: ['build'] }),
    el('SpdxDocument', 'document', { rootElement: [`${NS}/sbom`] }),
  );
  return { '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld', '@graph': graph };
}

/** A graph element of an SPDX 3 document by the last part of its id. */
export function element(doc: any, id: string): any {
  return doc['@graph'].find((n: any) => n.spdxId === `${NS}/${id}`);
}

export const SPDX3_NS = NS;
