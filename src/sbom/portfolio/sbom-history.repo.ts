import type { SbomFormat } from '../../shared/sbom-format.js';
import type { Executor } from '../../db/index.js';
import { componentsRepo } from '../store/components.repo.js';

export interface RevisionListing {
  id: string;
  release_version: string;
  revision: number;
  format: SbomFormat;
  spec_version: string;
  components: number;
  digest: string;
  source: string;
  ingested_at: string;
  /** Bytes of the document as received when it is kept (migration 019), else null. */
  document_bytes: number | null;
}

export interface ComponentListing {
  position: number;
  name: string;
  version: string | null;
  purl: string | null;
  type: string | null;
  licenses: string | null;
}

/** A product's revisions with their release version, the columns of a RevisionListing. */
function listings(db: Executor, productId: string) {
  return db
    .selectFrom('sbom_revisions as s')
    .innerJoin('releases as r', 'r.id', 's.release_id')
    .leftJoin('sbom_documents as d', 'd.digest', 's.digest')
    .select([
      'd.size as document_bytes',
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
    .where('s.product_id', '=', productId);
}

export const sbomHistoryRepo = {
  /** Every revision of a product, newest release first, newest revision first within it. */
  revisions(db: Executor, productId: string): Promise<RevisionListing[]> {
    return listings(db, productId).orderBy('r.created_at', 'desc').orderBy('s.revision', 'desc').execute();
  },

  findRevision(db: Executor, productId: string, releaseVersion: string, revision: number): Promise<RevisionListing | undefined> {
    return listings(db, productId).where('r.version', '=', releaseVersion).where('s.revision', '=', revision).executeTakeFirst();
  },

  /** A page of the revision's components in document order, read through its packed id list. */
  async components(db: Executor, orgId: string, sbomId: string, offset: number, limit: number): Promise<ComponentListing[]> {
    const ids = (await componentsRepo.memberIds(db, orgId, sbomId)).slice(offset, offset + limit);
    const byId = await componentsRepo.byIds(db, orgId, ids);
    return ids.map((id, i) => {
      const { name, version, purl, type, licenses } = byId.get(id)!;
      return { position: offset + i, name, version, purl, type, licenses };
    });
  },
};
