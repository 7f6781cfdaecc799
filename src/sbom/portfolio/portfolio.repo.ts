import type { Executor } from '../../db/index.js';
import type { AbbreviatedPurl } from '../../db/schema.js';
import { purlName, storedWhole } from '../parse/component-rows.js';
import { named, orgNumber, purlColumn } from '../store/components.repo.js';

export interface RevisionRef {
  sbom_id: string;
  sku: string;
  release_version: string;
  revision: number;
  ingested_at: string;
  component_ids: Buffer;
}

// Reads behind portfolio questions: which revisions hold a component, what changed between two.

export const portfolioRepo = {
  /**
   * The organisation's components with this purl, or this name (and version). By purl: those
   * named as the purl names its package, through the range of keys their name starts (named),
   * and the few named otherwise, through the partial purl index (migration 014); no component
   * is in both.
   */
  async matching(db: Executor, orgId: string, match: { purl: string } | { name: string; version?: string }) {
    const org = orgNumber(orgId);
    const components = () =>
      db
        .selectFrom('components as c')
        .select(['c.id', 'c.name', 'c.version', purlColumn('c').as('purl')])
        .where('c.org', '=', org);
    if ('purl' in match) {
      const name = purlName(match.purl);
      // The purls of this partial index are stored whole (abbreviate, component-rows.ts).
      const otherwise = await components()
        .where('c.purl_name_differs', '=', 1)
        .where('c.purl', '=', storedWhole<AbbreviatedPurl>(match.purl))
        .execute();
      if (name === null) return otherwise;
      return [...(await components().where(named('c', name)).where(purlColumn('c'), '=', match.purl).execute()), ...otherwise];
    }
    let query = components().where(named('c', match.name));
    if (match.version !== undefined) query = query.where('c.version', '=', match.version);
    return query.execute();
  },

  /** Every revision of the organisation with its packed component ids. */
  revisions(db: Executor, orgId: string): Promise<RevisionRef[]> {
    return db
      .selectFrom('sbom_revisions as s')
      .innerJoin('releases as r', 'r.id', 's.release_id')
      .innerJoin('products as p', 'p.id', 's.product_id')
      .innerJoin('sbom_members as m', 'm.sbom_id', 's.id')
      .select(['s.id as sbom_id', 'p.sku', 'r.version as release_version', 's.revision', 's.ingested_at', 'm.component_ids'])
      .where('s.org_id', '=', orgId)
      .execute();
  },

  /** A release of the product: the named one, else the one that received the latest revision. */
  release(db: Executor, productId: string, version: string | undefined) {
    let query = db
      .selectFrom('releases as r')
      .innerJoin('sbom_revisions as s', 's.release_id', 'r.id')
      .select(['r.id', 'r.version'])
      .where('r.product_id', '=', productId);
    if (version !== undefined) query = query.where('r.version', '=', version);
    return query.orderBy('s.ingested_at', 'desc').orderBy('s.revision', 'desc').limit(1).executeTakeFirst();
  },

  revision(db: Executor, releaseId: string, revision: number) {
    return db
      .selectFrom('sbom_revisions')
      .select(['id', 'revision'])
      .where('release_id', '=', releaseId)
      .where('revision', '=', revision)
      .executeTakeFirst();
  },
};
