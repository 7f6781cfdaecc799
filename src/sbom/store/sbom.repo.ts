import type { SbomFormat } from '../../shared/sbom-format.js';
import { sql } from 'kysely';
import type { Executor, Trx } from '../../db/index.js';
import type { SbomRevisionsTable } from '../../db/schema.js';

export interface StoredRevision extends SbomRevisionsTable {
  release_version: string;
}

export const sbomRepo = {
  findByDigest(db: Executor, productId: string, digest: string): Promise<StoredRevision | undefined> {
    return db
      .selectFrom('sbom_revisions as s')
      .innerJoin('releases as r', 'r.id', 's.release_id')
      .selectAll('s')
      .select('r.version as release_version')
      .where('s.product_id', '=', productId)
      .where('s.digest', '=', digest)
      .executeTakeFirst();
  },

  /**
   * Records the product's latest SBOM, only while the product is active. Run first in the
   * ingest transaction: on PostgreSQL the row lock it takes serialises ingests of one product.
   */
  async markProductSbom(trx: Trx, productId: string, format: SbomFormat, components: number, at: string): Promise<boolean> {
    const result = await trx
      .updateTable('products')
      .set({ sbom_status: format, sbom_components: components, updated_at: at })
      .where('id', '=', productId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  findReleaseId(trx: Trx, productId: string, version: string): Promise<string | undefined> {
    return trx
      .selectFrom('releases')
      .select('id')
      .where('product_id', '=', productId)
      .where('version', '=', version)
      .executeTakeFirst()
      .then((row) => row?.id);
  },

  async insertRelease(
    trx: Trx,
    release: { id: string; org_id: string; product_id: string; version: string; created_at: string },
  ): Promise<void> {
    await trx.insertInto('releases').values(release).execute();
  },

  async nextRevision(trx: Trx, releaseId: string): Promise<number> {
    const row = await trx
      .selectFrom('sbom_revisions')
      .select(sql<number>`coalesce(max(revision), 0)`.as('last'))
      .where('release_id', '=', releaseId)
      .executeTakeFirstOrThrow();
    return Number(row.last) + 1;
  },

  async insertRevision(trx: Trx, revision: SbomRevisionsTable): Promise<void> {
    await trx.insertInto('sbom_revisions').values(revision).execute();
  },
};
