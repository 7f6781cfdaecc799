import type { Executor, Trx } from '../../db/index.js';
import type { SbomDocumentsTable } from '../../db/schema.js';

/** A revision and its kept document (null for one ingested before documents were kept, migration 019). */
export interface RevisionDocument {
  sbom_id: string;
  release_version: string;
  revision: number;
  format: string;
  spec_version: string;
  digest: string;
  document: { encoding: string; size: number; content: Buffer } | null;
}

// Documents are reached only through the organisation's revision that holds them: a digest
// alone (the same bytes pushed by another organisation) never reads one.

export const sbomDocumentsRepo = {
  /** Keeps the document once: bytes already kept under this digest (by any product) stay as they are. */
  async keep(trx: Trx, document: SbomDocumentsTable): Promise<void> {
    await trx
      .insertInto('sbom_documents')
      .values(document)
      .onConflict((oc) => oc.column('digest').doNothing())
      .execute();
  },

  /**
   * The organisation's revisions with their documents: those named, or one of the product's:
   * revision `revision` (else the latest) of release `releaseVersion` (else of the release that
   * received the latest revision).
   */
  async forRevisions(
    db: Executor,
    orgId: string,
    where: { productId: string; releaseVersion?: string; revision?: number } | { sbomIds: readonly string[] },
  ): Promise<RevisionDocument[]> {
    let query = db
      .selectFrom('sbom_revisions as s')
      .innerJoin('releases as r', 'r.id', 's.release_id')
      .leftJoin('sbom_documents as d', 'd.digest', 's.digest')
      .select([
        's.id as sbom_id',
        'r.version as release_version',
        's.revision',
        's.format',
        's.spec_version',
        's.digest',
        'd.encoding',
        'd.size',
        'd.content',
      ])
      .where('s.org_id', '=', orgId);
    if ('sbomIds' in where) {
      if (where.sbomIds.length === 0) return [];
      query = query.where('s.id', 'in', where.sbomIds);
    } else {
      query = query.where('s.product_id', '=', where.productId);
      const { productId } = where;
      if (where.releaseVersion !== undefined) query = query.where('r.version', '=', where.releaseVersion);
      // The release that received the product's latest revision.
      else
        query = query.where('s.release_id', '=', (eb) =>
          eb
            .selectFrom('sbom_revisions')
            .select('release_id')
            .where('product_id', '=', productId)
            .orderBy('ingested_at', 'desc')
            .orderBy('revision', 'desc')
            .limit(1),
        );
      if (where.revision !== undefined) query = query.where('s.revision', '=', where.revision);
    }
    query = query.orderBy('s.ingested_at', 'desc').orderBy('s.revision', 'desc');
    const rows = await ('sbomIds' in where ? query : query.limit(1)).execute();
    return rows.map((r) => ({
      sbom_id: r.sbom_id,
      release_version: r.release_version,
      revision: Number(r.revision),
      format: r.format,
      spec_version: r.spec_version,
      digest: r.digest,
      document:
        r.content === null || r.encoding === null || r.size === null
          ? null
          : { encoding: r.encoding, size: Number(r.size), content: Buffer.from(r.content) },
    }));
  },
};
