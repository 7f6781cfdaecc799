import { Type, type Static } from '@sinclair/typebox';
import { SbomFormatSchema } from '../shared/sbom-format.js';

export const SbomConformanceAnswerSchema = Type.Object(
  {
    profile: Type.String({
      description:
        'The conformance profile: the one the organisation requires (policy require:PROFILE), else bsi-tr-03183-2-v2.1 (BSI TR-03183-2 v2.1.0); ntia-minimum is the other',
    }),
    conforms: Type.Boolean({
      description: 'Every required field present on the document and on every component of its level, and no finding',
    }),
    missing_required: Type.Array(Type.String(), {
      description:
        "The required field ids missing (a document field, or a component field missing on at least one component), in the profile's order, e.g. component.hash_sha512",
    }),
  },
  {
    $id: 'SbomConformance',
    title: 'SbomConformance',
    additionalProperties: false,
    description:
      "The document's conformance as computed when it was read; the full report is in the console and `cra-admin sbom conformance`",
  },
);

export type SbomConformanceAnswer = Static<typeof SbomConformanceAnswerSchema>;

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
    conformance: Type.Union([Type.Ref(SbomConformanceAnswerSchema), Type.Null()], {
      description: "Conformance to the organisation's profile, kept with the revision; null for a revision stored before reports were kept",
    }),
  },
  { $id: 'SbomIngested', title: 'SbomIngested', additionalProperties: false },
);

export type SbomIngested = Static<typeof SbomIngestedSchema>;
