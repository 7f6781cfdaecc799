import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { bodyChunksParser } from '../../http/body-chunks.js';
import { bodyCheckedByHandler } from '../../http/body-checked-by-handler.js';
import { apiSecurity, authErrors, bodyErrors, errorResponse, success } from '../../http/openapi-responses.js';
import { CYCLONEDX_VERSIONS } from '../parse/cyclonedx-validator.js';
import type { BodyBudget } from './body-budget.js';
import type { SbomIngestService } from '../store/ingest.service.js';
import { errorExample } from '../../http/openapi-examples.js';
import { SBOM_INGESTED_EXAMPLES, SBOM_REQUEST_EXAMPLES } from './sbom.examples.js';
import { SbomConformanceAnswerSchema, SbomIngestedSchema } from '../sbom.schemas.js';

/** Media types the operation accepts; all carry the same JSON documents. */
export const SBOM_MEDIA_TYPES = ['application/json', 'application/vnd.cyclonedx+json', 'application/spdx+json'];

// Each format is recognised by the properties listed here; everything else a document holds is
// allowed (additionalProperties: true), so a client generated from this document can pass a
// complete CycloneDX or SPDX document. The full check is the service's (official schemas).
const cycloneDx = Type.Object(
  { bomFormat: Type.Literal('CycloneDX'), specVersion: Type.Union(CYCLONEDX_VERSIONS.map((v) => Type.Literal(v))) },
  {
    title: 'CycloneDX JSON',
    description: 'A CycloneDX BOM in JSON, validated against the official schema of its specVersion',
    additionalProperties: true,
  },
);
const spdx2 = Type.Object(
  { spdxVersion: Type.Union([Type.Literal('SPDX-2.2'), Type.Literal('SPDX-2.3')]) },
  {
    title: 'SPDX 2.2/2.3 JSON',
    description: 'An SPDX 2.2 or 2.3 document in JSON; its mandatory fields are checked',
    additionalProperties: true,
  },
);
const spdx3 = Type.Object(
  {
    '@context': Type.String({ description: 'https://spdx.org/rdf/3.0.x/spdx-context.jsonld' }),
    '@graph': Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  {
    title: 'SPDX 3.0 JSON-LD',
    description: 'An SPDX 3.0 document in JSON-LD with an SpdxDocument naming its root elements',
    additionalProperties: true,
  },
);
const anySbom = Type.Union([cycloneDx, spdx2, spdx3], { description: 'Any supported SBOM document' });

export function ingestSbomRoute(
  app: FastifyInstance,
  deps: { sbom: SbomIngestService; maxBytes: number; bodies: BodyBudget; warmUp: (() => void) | null },
): void {
  // The document's digest covers its exact bytes, so this operation reads them as they came, in
  // the chunks they arrived in (never joined here: the worker that parses them joins them);
  // other routes keep Fastify's JSON parser.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(SBOM_MEDIA_TYPES, { bodyLimit: deps.maxBytes }, bodyChunksParser(deps.maxBytes));

  if (deps.warmUp) warmUpReader(app, deps.warmUp);

  app.post<{ Params: { sku: string } }>(
    '/products/:sku/sbom',
    {
      config: {
        scope: 'products:write',
        examples: {
          request: SBOM_REQUEST_EXAMPLES,
          responses: {
            201: SBOM_INGESTED_EXAMPLES,
            200: SBOM_INGESTED_EXAMPLES,
            422: {
              invalid: {
                ...errorExample('invalid_sbom', 'the document is not valid CycloneDX 1.6', [
                  { path: '/components/0', message: "must have required property 'name'" },
                ]),
                summary: 'A CycloneDX document that fails its schema',
              },
              unsupported: {
                ...errorExample(
                  'unsupported_sbom_format',
                  'CycloneDX specVersion "1.1" is not supported; supported: CycloneDX JSON 1.2–1.7, SPDX 2.2 or 2.3 JSON, SPDX 3.0 JSON-LD',
                ),
                summary: 'Neither CycloneDX nor SPDX in a supported version',
              },
              notConformant: {
                ...errorExample(
                  'sbom_not_conformant',
                  'the SBOM does not conform to bsi-tr-03183-2-v2.1 (2.1.0), which this organisation requires: 1 required field missing; nothing was stored',
                  [
                    {
                      path: '',
                      message:
                        'component.hash_sha512: missing on 2 of 3 components (busybox 1.36.1: only SHA-256; openssl 3.0.15: no hash of the deployable form)',
                      field: 'component.hash_sha512',
                      missing: 2,
                      examples: ['busybox 1.36.1: only SHA-256', 'openssl 3.0.15: no hash of the deployable form'],
                    },
                  ],
                ),
                summary:
                  'The organisation requires TR-03183-2 (policy require:bsi-tr-03183-2-v2.1) and the document lacks a required field',
              },
            },
          },
        },
      },
      bodyLimit: deps.maxBytes,
      preParsing: deps.bodies.reserve,
      // The body is checked by the ingest service (format, schema, digest); the schema below documents it.
      validatorCompiler: bodyCheckedByHandler,
      schema: {
        operationId: 'ingestSbom',
        summary: "Ingest an SBOM for a product's release",
        description:
          'Stores a CycloneDX (JSON, spec 1.2–1.7) or SPDX (2.2/2.3 JSON, 3.0 JSON-LD) document as a new revision of the product release it names ' +
          "(CycloneDX metadata.component.version; SPDX: the described package's version; else the product's firmware_version; else `unversioned`). " +
          "The answer's `conformance` says whether the document conforms to the organisation's profile (BSI TR-03183-2 v2.1 unless it chose the NTIA minimum elements) and which required fields it lacks; " +
          'an organisation whose policy requires a profile refuses a document that does not conform (422 sbom_not_conformant, nothing stored). ' +
          'The identical document (same SHA-256 of the bytes) sent again for the same product answers 200 with the stored revision and stores nothing. ' +
          `Content-Type: ${SBOM_MEDIA_TYPES.join(', ')}. Body limit: SBOM_MAX_BYTES (50 MiB by default). Requires scope \`products:write\`. ` +
          'The SBOM bodies held at once are bounded (SBOM_INFLIGHT_BYTES, 100 MiB by default): beyond it, 503 with Retry-After. ' +
          'No short form: this operation answers only under /api/v1/external.',
        tags: ['sbom'],
        security: apiSecurity,
        params: Type.Object({
          sku: Type.String({ minLength: 1, maxLength: 100, description: "The product's SKU in the key's organisation" }),
        }),
        body: {
          content: {
            'application/json': { schema: anySbom },
            'application/vnd.cyclonedx+json': { schema: cycloneDx },
            'application/spdx+json': { schema: Type.Union([spdx2, spdx3]) },
          },
        },
        response: {
          201: success(Type.Ref(SbomIngestedSchema), 'Stored as a new revision of the release'),
          200: success(Type.Ref(SbomIngestedSchema), 'This product already has the identical document; the stored revision'),
          ...authErrors,
          ...bodyErrors,
          404: errorResponse('No product with this SKU in the organisation (code product_not_found)'),
          409: errorResponse('The product is archived (code product_archived)'),
          422: errorResponse(
            'Neither CycloneDX JSON 1.2–1.7 nor SPDX 2.2/2.3 JSON or 3.0 JSON-LD (code unsupported_sbom_format), ' +
              'or a recognised format that fails its schema, nests deeper than 100 levels, or holds a NUL character or a lone UTF-16 surrogate (code invalid_sbom, `details` with JSON pointers), ' +
              "or, when the organisation's SBOM policy is require:PROFILE, a document that does not conform to PROFILE (code sbom_not_conformant, nothing stored; `details`: one per missing required field with `field`, `missing` and up to five `examples`, one per `finding`)",
          ),
          503: errorResponse(
            "Too many SBOM bodies are held at once, or this organisation's bodies hold its share (half of the bound), or the database is unreachable for now (code service_unavailable); nothing was stored",
            {
              'Retry-After': { type: 'integer', description: 'Seconds to wait before retrying' },
            },
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const result = await deps.sbom.ingestSbom({
        orgId: principal.orgId,
        sku: request.params.sku,
        bytes: Array.isArray(request.body) ? (request.body as Buffer[]) : [],
        actor: `api:${principal.keyName}`,
      });
      return reply.code(result.created ? 201 : 200).send(result.sbom);
    },
  );
}

/** The parse workers start and warm up once the server listens (not under inject: tests never listen). */
function warmUpReader(app: FastifyInstance, warmUp: () => void): void {
  app.addHook('onListen', async () => {
    warmUp();
  });
}

export const sbomSchemas = [SbomConformanceAnswerSchema, SbomIngestedSchema];
