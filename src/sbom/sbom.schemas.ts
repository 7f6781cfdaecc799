import { Type, type Static } from '@sinclair/typebox';
import { SbomFormatSchema } from '../shared/sbom-format.js';

export const SbomIngestedSchema = Type.Object(
  {
    sbom_id: Type.String({ format: 'uuid', description: 'Identifier of the stored SBOM revision' }),
    product_sku: Type.String(),
    release_version: Type.String({
      description:
        "The release the SBOM belongs to: the version the document names for the product (CycloneDX metadata.component.version, SPDX: the described package's version), else the product's firmware_version, else `unversioned`",
    }),
    format: SbomFormatSchema,
    spec_version: Type.String({ description: 'Specification version of the document, e.g. 1.6 (CycloneDX), 2.3 or 3.0.1 (SPDX)' }),
    components: Type.Integer({
      minimum: 0,
      description:
        'Components listed besides the product itself (CycloneDX: nested ones included; SPDX: packages not described by the document)',
    }),
    digest: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of the document bytes as received' }),
    ingested_at: Type.String({ format: 'date-time', description: 'When this revision was stored (for a 200: when it was first stored)' }),
  },
  { $id: 'SbomIngested', title: 'SbomIngested', additionalProperties: false },
);

export type SbomIngested = Static<typeof SbomIngestedSchema>;
