import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { openDocument } from '../parse/document-codec.js';
import { type RevisionDocument, sbomDocumentsRepo } from '../store/sbom-documents.repo.js';

/** A revision's document as received, checked against its SHA-256. */
export interface DownloadedDocument {
  sku: string;
  release_version: string;
  revision: number;
  format: string;
  spec_version: string;
  /** SHA-256 (hex) of `bytes`. */
  digest: string;
  bytes: Buffer;
  /** A file name for it: "<sku>-<release>-r<revision>.<ext>" with only safe characters. */
  filename: string;
}

/** A document kept for a revision (for an evidence bundle), or why there is none. */
export type RevisionDocumentBytes =
  | { sbom_id: string; digest: string; bytes: Buffer }
  | { sbom_id: string; digest: string; missing: string };

export const NOT_KEPT =
  'ingested before documents as received were kept (migration 019): only its components are stored (the same bytes pushed again answer with this revision and store nothing)';

const describe = (sku: string, r: RevisionDocument) => `revision ${r.revision} of release ${r.release_version} of "${sku}"`;

function filename(sku: string, r: RevisionDocument): string {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '_');
  const ext = r.format === 'cyclonedx' ? 'cdx.json' : 'spdx.json';
  return `${safe(sku)}-${safe(r.release_version)}-r${r.revision}.${ext}`;
}

/**
 * The documents as received of an organisation's revisions (sbom-conformance.md, "The
 * document as received"). Every read goes through the organisation's own revision: the
 * organisation and product are resolved first, and the document is the one its revision names.
 */
export function createSbomDocumentService(
  database: Database,
  orgs: { requireOrg(slug: string): Promise<{ id: string }> },
  products: { requireProduct(orgId: string, sku: string): Promise<{ id: string; org_id: string; sku: string }> },
) {
  return {
    /** Revision `revision` (default the latest) of release `release` (default the one that received the latest SBOM). */
    async download(orgSlug: string, sku: string, options: { release?: string; revision?: number } = {}): Promise<DownloadedDocument> {
      const org = await orgs.requireOrg(orgSlug);
      const product = await products.requireProduct(org.id, sku);
      const [found] = await sbomDocumentsRepo.forRevisions(database.db, org.id, {
        productId: product.id,
        releaseVersion: options.release,
        revision: options.revision,
      });
      if (!found) {
        const which =
          options.release === undefined
            ? options.revision === undefined
              ? 'no SBOM'
              : `no revision ${options.revision} in the release that received its latest SBOM`
            : options.revision === undefined
              ? `no SBOM for release ${options.release}`
              : `no revision ${options.revision} of release ${options.release}`;
        throw new AppError('not_found', `product "${product.sku}" has ${which}`);
      }
      if (!found.document) throw new AppError('not_found', `${describe(product.sku, found)} has no document as received: ${NOT_KEPT}`);
      const bytes = await openDocument({ digest: found.digest, ...found.document }, describe(product.sku, found));
      return {
        sku: product.sku,
        release_version: found.release_version,
        revision: found.revision,
        format: found.format,
        spec_version: found.spec_version,
        digest: found.digest,
        bytes,
        filename: filename(product.sku, found),
      };
    },

    /** The documents of the organisation's revisions `sbomIds` (others' are not read), each checked; in the order asked. */
    async documentsOf(orgId: string, sbomIds: readonly string[]): Promise<RevisionDocumentBytes[]> {
      const rows = await sbomDocumentsRepo.forRevisions(database.db, orgId, { sbomIds });
      const byId = new Map(rows.map((r) => [r.sbom_id, r]));
      const out: RevisionDocumentBytes[] = [];
      for (const id of sbomIds) {
        const r = byId.get(id);
        if (!r) continue;
        if (!r.document) out.push({ sbom_id: id, digest: r.digest, missing: NOT_KEPT });
        else {
          const bytes = await openDocument({ digest: r.digest, ...r.document }, `revision ${r.revision} of release ${r.release_version}`);
          out.push({ sbom_id: id, digest: r.digest, bytes });
        }
      }
      return out;
    },
  };
}

export type SbomDocumentService = ReturnType<typeof createSbomDocumentService>;
