import type { Executor } from '../db/index.js';

export interface RevisionListing {
  id: string;
  release_version: string;
  revision: number;
  format: 'cyclonedx' | 'spdx';
  spec_version: string;
  components: number;
  digest: string;
  source: string;
  ingested_at: string;
}

export interface ComponentListing {
  position: number;
  name: string;
  version: string | null;
  purl: string | null;
  type: string | null;
  licenses: string | null;
}

export const sbomHistoryRepo = {
  /** Every revision of a product, newest release first, newest revision first within it. */
  revisions(db: Executor, productId: string): Promise<RevisionListing[]> {
    return db
      .selectFrom('sbom_revisions as s')
      .innerJoin('releases as r', 'r.id', 's.release_id')
      .select([
        's.id',
        'r.version as release_version',
        's.revision',
        's.format',
        's.spec_version',
        's.components',
        's.digest',
        's.source',
        's.ingested_at',
      ])
      .where('s.product_id', '=', productId)
      .orderBy('r.created_at', 'desc')
      .orderBy('s.revision', 'desc')
      .execute();
  },

  findRevision(db: Executor, productId: string, releaseVersion: string, revision: number): Promise<RevisionListing | undefined> {
    return db
      .selectFrom('sbom_revisions as s')
      .innerJoin('releases as r', 'r.id', 's.release_id')
      .select([
        's.id',
        'r.version as release_version',
        's.revision',
        's.format',
        's.spec_version',
        's.components',
        's.digest',
        's.source',
        's.ingested_at',
      ])
      .where('s.product_id', '=', productId)
      .where('r.version', '=', releaseVersion)
      .where('s.revision', '=', revision)
      .executeTakeFirst();
  },

  components(db: Executor, sbomId: string, offset: number, limit: number): Promise<ComponentListing[]> {
    return db
      .selectFrom('sbom_components')
      .select(['position', 'name', 'version', 'purl', 'type', 'licenses'])
      .where('sbom_id', '=', sbomId)
      .orderBy('position')
      .offset(offset)
      .limit(limit)
      .execute();
  },
};
