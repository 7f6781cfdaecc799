import type { SbomFormat } from '../../shared/sbom-format.js';
import { checkConformance, DEFAULT_CONFORMANCE_PROFILE } from '../conformance/conformance.js';
import type { SbomIngested } from '../sbom.schemas.js';

// Small, valid documents for the OpenAPI document's request examples (the OpenAPI test sends
// each one to the API and expects it stored), and the answers they get.

const CYCLONEDX_EXAMPLE = {
  bomFormat: 'CycloneDX',
  specVersion: '1.6',
  serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
  version: 1,
  metadata: {
    timestamp: '2026-11-22T09:00:00Z',
    component: { type: 'firmware', name: 'router-100-firmware', version: '2.4.1', 'bom-ref': 'router-100-firmware' },
  },
  components: [
    {
      type: 'library',
      'bom-ref': 'pkg:generic/openssl@3.0.15',
      name: 'openssl',
      version: '3.0.15',
      purl: 'pkg:generic/openssl@3.0.15',
      licenses: [{ license: { id: 'Apache-2.0' } }],
    },
    {
      type: 'library',
      'bom-ref': 'pkg:generic/busybox@1.36.1',
      name: 'busybox',
      version: '1.36.1',
      purl: 'pkg:generic/busybox@1.36.1',
      licenses: [{ license: { id: 'GPL-2.0-only' } }],
    },
    {
      type: 'library',
      'bom-ref': 'pkg:generic/zlib@1.3.1',
      name: 'zlib',
      version: '1.3.1',
      purl: 'pkg:generic/zlib@1.3.1',
      licenses: [{ license: { id: 'Zlib' } }],
    },
  ],
};

const SPDX_EXAMPLE = {
  spdxVersion: 'SPDX-2.3',
  dataLicense: 'CC0-1.0',
  SPDXID: 'SPDXRef-DOCUMENT',
  name: 'router-100-firmware-2.4.1',
  documentNamespace: 'https://sbom.cra-platform.example/spdx/router-100-firmware-2.4.1',
  creationInfo: { created: '2026-11-22T09:00:00Z', creators: ['Tool: example-build-pipeline'] },
  documentDescribes: ['SPDXRef-firmware'],
  packages: [
    {
      SPDXID: 'SPDXRef-firmware',
      name: 'router-100-firmware',
      versionInfo: '2.4.1',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
    },
    {
      SPDXID: 'SPDXRef-openssl',
      name: 'openssl',
      versionInfo: '3.0.15',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      licenseConcluded: 'Apache-2.0',
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:generic/openssl@3.0.15' }],
    },
  ],
  relationships: [{ spdxElementId: 'SPDXRef-firmware', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-openssl' }],
};

const cyclonedx = { summary: 'CycloneDX 1.6: firmware 2.4.1 with three components', value: CYCLONEDX_EXAMPLE };
const spdx = { summary: 'SPDX 2.3: firmware 2.4.1 with one package', value: SPDX_EXAMPLE };

export const SBOM_REQUEST_EXAMPLES = {
  'application/json': { cyclonedx, spdx },
  'application/vnd.cyclonedx+json': { cyclonedx },
  'application/spdx+json': { spdx },
};

/** What the answer says of the example's conformance: computed from the example itself, as the ingest does. */
function conformanceOf(document: unknown, kind: 'cyclonedx' | 'spdx2', specVersion: string): SbomIngested['conformance'] {
  const report = checkConformance(document, { kind, specVersion }, DEFAULT_CONFORMANCE_PROFILE);
  return { profile: report.profile, conforms: report.conforms, missing_required: report.missing_required };
}

const ingested = (
  format: SbomFormat,
  specVersion: string,
  components: number,
  digest: string,
  conformance: SbomIngested['conformance'],
): SbomIngested => ({
  sbom_id: '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e',
  product_sku: 'RTR-100',
  release_version: '2.4.1',
  format,
  spec_version: specVersion,
  components,
  digest,
  ingested_at: '2026-11-22T10:15:30.123Z',
  conformance,
});

export const SBOM_INGESTED_EXAMPLES = {
  cyclonedx: {
    summary: 'The CycloneDX example, stored as revision 1 of release 2.4.1',
    value: ingested(
      'cyclonedx',
      '1.6',
      3,
      'a3f1c2e4b5d6978812a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809',
      conformanceOf(CYCLONEDX_EXAMPLE, 'cyclonedx', '1.6'),
    ),
  },
  spdx: {
    summary: 'The SPDX example',
    value: ingested(
      'spdx',
      '2.3',
      1,
      '0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d',
      conformanceOf(SPDX_EXAMPLE, 'spdx2', '2.3'),
    ),
  },
};
