import { sql } from 'kysely';
import type { Database, Executor, Trx } from '../db/index.js';
import type { SbomRevisionsTable } from '../db/schema.js';
import type { NormalisedComponent } from './normalise.js';

export interface StoredRevision extends SbomRevisionsTable {
  release_version: string;
}

const COMPONENT_COLUMNS = ['sbom_id', 'position', 'name', 'version', 'purl', 'type', 'licenses', 'ref'] as const;

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
  async markProductSbom(trx: Trx, productId: string, format: 'cyclonedx' | 'spdx', components: number, at: string): Promise<boolean> {
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

  async insertRelease(trx: Trx, release: { id: string; org_id: string; product_id: string; version: string; created_at: string }): Promise<void> {
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

  /** The revision's components, in document order, through the database's bulk insert. */
  insertComponents(database: Pick<Database, 'bulkInsert'>, trx: Trx, sbomId: string, components: readonly NormalisedComponent[]): Promise<void> {
    // One flat list in COMPONENT_COLUMNS order: no array or object per row for 100,000 rows.
    const values: unknown[] = new Array(components.length * COMPONENT_COLUMNS.length);
    let i = 0;
    for (let position = 0; position < components.length; position++) {
      const c = components[position]!;
      values[i++] = sbomId;
      values[i++] = position;
      values[i++] = c.name;
      values[i++] = c.version;
      values[i++] = c.purl;
      values[i++] = c.type;
      values[i++] = c.licenses.length > 0 ? JSON.stringify(c.licenses) : null;
      values[i++] = c.ref;
    }
    return database.bulkInsert(trx, 'sbom_components', COMPONENT_COLUMNS, values);
  },
};
