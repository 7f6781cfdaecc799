import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/index.js';
import { isUniqueViolation } from '../../db/index.js';
import type { ProductRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import { appendRegistryEntry } from '../../registry/append-entry.js';
import { sha256InSteps } from '../../shared/sha256-in-steps.js';
import { iso, systemClock, type Clock } from '../../shared/time.js';
import { componentsRepo } from './components.repo.js';
import type { BuildVerdict } from '../parse/build-verdicts.js';
import type { SbomReader } from '../parse/sbom-reader.js';
import { sbomRepo, type StoredRevision } from './sbom.repo.js';
import { DOCUMENT_ENCODING } from '../parse/document-codec.js';
import { sbomDocumentsRepo } from './sbom-documents.repo.js';
import { storeInSlices } from './store-components.js';
import { KnownComponents } from './known-components.js';
import type { SbomIngested, SbomConformanceAnswer } from '../sbom.schemas.js';
import { conformanceRepo } from './conformance.repo.js';
import { policyProfile, storedSbomPolicy } from '../conformance/policy.js';
import type { ConformanceReport } from '../conformance/conformance.js';

export interface IngestRequest {
  orgId: string;
  sku: string;
  /**
   * The document exactly as received, whole or in the chunks it arrived in: its SHA-256 is the
   * digest. A new document's buffers move to the parse worker: the caller must not use them after.
   */
  bytes: Buffer | readonly Buffer[];
  /** Who ingests, for the activity registry: "api:<key name>" or "cli". */
  actor: string;
}

export interface IngestResult {
  /** false when this product already has a revision with the same digest (nothing stored). */
  created: boolean;
  revision: number;
  sbom: SbomIngested;
}

/** What the API's answer says of a report: the profile, whether the document conforms, what is missing. */
function conformanceAnswer(report: ConformanceReport | undefined): SbomConformanceAnswer | null {
  return report ? { profile: report.profile, conforms: report.conforms, missing_required: report.missing_required } : null;
}

function view(product: ProductRow, stored: StoredRevision, conformance: SbomConformanceAnswer | null): SbomIngested {
  return {
    sbom_id: stored.id,
    product_sku: product.sku,
    release_version: stored.release_version,
    format: stored.format,
    spec_version: stored.spec_version,
    components: stored.components,
    digest: stored.digest,
    ingested_at: stored.ingested_at,
    conformance,
  };
}

/** What a new revision is and the verdicts on CVEs its build wrote into it (build-verdicts.ts), for onStored. */
export interface StoredRevisionFacts {
  orgId: string;
  sku: string;
  sbomId: string;
  release: string;
  revision: number;
  buildVerdicts: BuildVerdict[];
}

function sumLengths(chunks: readonly Buffer[]): number {
  let total = 0;
  for (const chunk of chunks) total += chunk.byteLength;
  return total;
}

/** Bytes of the component ids remembered between uploads (known-components.ts): 200,000–400,000 keys. */
export const KNOWN_COMPONENTS_BYTES = 24 * 1024 * 1024;

export function createSbomIngestService(
  database: Database,
  orgs: { requireOrg(slug: string): Promise<{ id: string }> },
  products: { requireProduct(orgId: string, sku: string): Promise<ProductRow> },
  reader: SbomReader,
  options: {
    clock?: Clock;
    /** Hears each new revision once it is durable (vulnerability matching starts there, off the request's path). */
    onStored?: (productId: string, componentIds: ArrayLike<number>, revision: StoredRevisionFacts) => void;
  } = {},
) {
  const clock = options.clock ?? systemClock;
  const knownComponents = new KnownComponents(KNOWN_COMPONENTS_BYTES);
  // An organisation's number never changes: asked for once per process (bounded, in case of
  // very many organisations).
  const orgNumbers = new Map<string, number>();
  async function orgOf(orgId: string): Promise<{ id: string; number: number }> {
    let number = orgNumbers.get(orgId);
    if (number === undefined) {
      number = await componentsRepo.orgNumber(database.db, orgId);
      if (orgNumbers.size >= 10_000) orgNumbers.clear();
      orgNumbers.set(orgId, number);
    }
    return { id: orgId, number };
  }

  async function existing(product: ProductRow, digest: string): Promise<IngestResult | null> {
    const stored = await sbomRepo.findByDigest(database.db, product.id, digest);
    if (!stored) return null;
    // The report kept when it was stored, for the profile the organisation speaks of now (none
    // for a revision stored before reports were kept: never recomputed silently).
    const profile = policyProfile(storedSbomPolicy(await conformanceRepo.policyOf(database.db, product.org_id)));
    const report = await conformanceRepo.report(database.db, stored.id, profile);
    return { created: false, revision: stored.revision, sbom: view(product, stored, conformanceAnswer(report)) };
  }

  const service = {
    /**
     * Ingests one SBOM document as a new revision of the product's release, or answers with the
     * revision already holding the identical document. For callers holding the organisation's id (the
     * API, whose key names it; the console's product page).
     */
    async ingestSbom(request: IngestRequest): Promise<IngestResult> {
      const product = await products.requireProduct(request.orgId, request.sku);
      if (product.status === 'archived') throw new AppError('product_archived', `product "${product.sku}" is archived`);
      // Hashed a MiB per turn of the event loop: a 50 MiB body never holds it for long.
      const digest = await sha256InSteps(request.bytes);
      const known = await existing(product, digest);
      if (known) return known;
      // Counted now: the buffers may move to the parse worker.
      const size = Buffer.isBuffer(request.bytes) ? request.bytes.byteLength : sumLengths(request.bytes);

      // Parsed, validated and normalised in a worker thread (the bytes may move there), which
      // hands the components over in slices as it reads them: each is stored while the next is
      // read.
      const policy = storedSbomPolicy(await conformanceRepo.policyOf(database.db, product.org_id));
      const required = policy.mode === 'require' ? policy.profile : undefined;
      // A document that does not conform to the profile the organisation requires is refused by
      // the worker before it hands over a single component: nothing is stored.
      const storing = storeInSlices(database, await orgOf(product.org_id), knownComponents);
      const reading = await reader.read(request.bytes, storing.add, { require: required }).catch(async (error: unknown) => {
        await storing.abandon();
        throw error;
      });
      const { detected, compressed } = reading;
      if (!compressed) throw new Error('the parse thread answered without the document as it is kept');
      const report = reading.conformance.find((r) => r.profile === policyProfile(policy));
      const releaseVersion = reading.releaseVersion ?? product.firmware_version ?? 'unversioned';
      const componentIds = await storing.finish(reading.count);
      const at = iso(clock());
      const sbomId = randomUUID();
      const count = reading.count;
      try {
        const revision = await database.transaction(async (trx) => {
          if (!(await sbomRepo.markProductSbom(trx, product.id, detected.format, count, at))) {
            throw new AppError('product_archived', `product "${product.sku}" is archived`);
          }
          let releaseId = await sbomRepo.findReleaseId(trx, product.id, releaseVersion);
          if (!releaseId) {
            releaseId = randomUUID();
            await sbomRepo.insertRelease(trx, {
              id: releaseId,
              org_id: product.org_id,
              product_id: product.id,
              version: releaseVersion,
              created_at: at,
            });
          }
          const revision = await sbomRepo.nextRevision(trx, releaseId);
          await sbomRepo.insertRevision(trx, {
            id: sbomId,
            org_id: product.org_id,
            product_id: product.id,
            release_id: releaseId,
            revision,
            format: detected.format,
            spec_version: detected.specVersion,
            digest,
            components: count,
            source: request.actor,
            ingested_at: at,
            subject_cpes: reading.subjectCpes,
          });
          await componentsRepo.insertMembers(trx, sbomId, componentIds);
          await conformanceRepo.insertReports(trx, sbomId, reading.conformance, at);
          // The document as received, in the same transaction: a revision never lacks its bytes.
          await sbomDocumentsRepo.keep(trx, {
            digest,
            encoding: DOCUMENT_ENCODING,
            size,
            stored_size: compressed.byteLength,
            content: Buffer.from(compressed.buffer, compressed.byteOffset, compressed.byteLength),
            created_at: at,
          });
          await appendRegistryEntry(
            trx,
            product.org_id,
            {
              actor: request.actor,
              action: 'sbom.ingested',
              subject: product.sku,
              details: {
                sbom_id: sbomId,
                format: detected.format,
                spec_version: detected.specVersion,
                release: releaseVersion,
                revision,
                components: count,
                digest,
                conformance: reading.conformance.map((r) => ({
                  profile: r.profile,
                  profile_version: r.profile_version,
                  conforms: r.conforms,
                })),
              },
            },
            at,
          );
          return revision;
        });
        options.onStored?.(product.id, componentIds, {
          orgId: product.org_id,
          sku: product.sku,
          sbomId,
          release: releaseVersion,
          revision,
          buildVerdicts: reading.buildVerdicts,
        });
        return {
          created: true,
          revision,
          sbom: {
            sbom_id: sbomId,
            product_sku: product.sku,
            release_version: releaseVersion,
            format: detected.format,
            spec_version: detected.specVersion,
            components: count,
            digest,
            ingested_at: at,
            conformance: conformanceAnswer(report),
          },
        };
      } catch (error) {
        // The same document sent twice at once: the other request stored it first.
        if (isUniqueViolation(error)) {
          const stored = await existing(product, digest);
          if (stored) return stored;
        }
        throw error;
      }
    },

    /** The same ingest for the organisation named by its slug (`cra-admin sbom upload`). */
    async uploadSbom(request: Omit<IngestRequest, 'orgId'> & { org: string }): Promise<IngestResult> {
      const { org, ...rest } = request;
      return service.ingestSbom({ ...rest, orgId: (await orgs.requireOrg(org)).id });
    },
  };
  return service;
}

export type SbomIngestService = ReturnType<typeof createSbomIngestService>;
