import { setImmediate as turn } from 'node:timers/promises';
import { type ExpressionBuilder, sql } from 'kysely';
import type { DB, ProductRow } from '../../db/schema.js';
import { type DialectName, type Executor, inList } from '../../db/index.js';
import type { FindingRow } from '../../db/schema-vulns.js';
import { orgNumber } from '../../sbom/store/components.repo.js';
import { decodeIds } from '../../sbom/store/id-list.js';

// Findings as stored: one row per (organisation, product, component, vulnerability), kept in
// step with the product's latest revisions and the matches.

const CHUNK = 500;

/** A release's latest revision with its packed component ids. */
export interface LatestRevision {
  sbom_id: string;
  release_version: string;
  revision: number;
  ingested_at: string;
  component_ids: Buffer;
}

export interface FindingFilter {
  productId?: string;
  vulnKeys?: string[];
  exploited?: boolean;
}

/** `s` (an sbom_revisions row) is the latest revision of its release. */
const isLatestRevision = ({ eb, selectFrom }: ExpressionBuilder<DB & { s: DB['sbom_revisions'] }, 's'>) =>
  eb(
    's.revision',
    '=',
    selectFrom('sbom_revisions as l')
      .select((e) => e.fn.max('l.revision').as('latest'))
      .whereRef('l.release_id', '=', 's.release_id'),
  );

/** Adds each (component, group) row to `out`, component id → its groups. */
function collectMatches(rows: ReadonlyArray<{ component_id: number | string; vuln_key: string }>, out: Map<number, Set<string>>) {
  for (const row of rows) {
    const id = Number(row.component_id);
    const set = out.get(id) ?? new Set<string>();
    set.add(row.vuln_key);
    out.set(id, set);
  }
  return out;
}

export const findingsRepo = {
  /** A product by its id (the engine refreshes products named by id). */
  product(db: Executor, productId: string): Promise<ProductRow | undefined> {
    return db.selectFrom('products').selectAll().where('id', '=', productId).executeTakeFirst();
  },

  /** The organisation of each of these products. */
  async organisationsOf(db: Executor, productIds: readonly string[]): Promise<Array<{ id: string; org_id: string }>> {
    const out: Array<{ id: string; org_id: string }> = [];
    for (let i = 0; i < productIds.length; i += CHUNK) {
      out.push(
        ...(await db
          .selectFrom('products')
          .select(['id', 'org_id'])
          .where('id', 'in', productIds.slice(i, i + CHUNK))
          .execute()),
      );
    }
    return out;
  },

  /** The organisation's products, by SKU (coverage of each). */
  productsOf(db: Executor, orgId: string): Promise<ProductRow[]> {
    return db.selectFrom('products').selectAll().where('org_id', '=', orgId).orderBy('sku').execute();
  },

  /** The latest revision of each release of the product (what the product "has" now). */
  latestRevisions(db: Executor, productId: string): Promise<LatestRevision[]> {
    return db
      .selectFrom('sbom_revisions as s')
      .innerJoin('releases as r', 'r.id', 's.release_id')
      .innerJoin('sbom_members as m', 'm.sbom_id', 's.id')
      .select(['s.id as sbom_id', 'r.version as release_version', 's.revision', 's.ingested_at', 'm.component_ids'])
      .where('s.product_id', '=', productId)
      .where(isLatestRevision)
      .execute();
  },

  /** Component id → the alias groups its package version matches (live records only). */
  async matchesOf(db: Executor, dialect: DialectName, componentIds: readonly number[], chunk = CHUNK): Promise<Map<number, Set<string>>> {
    const out = new Map<number, Set<string>>();
    for (let i = 0; i < componentIds.length; i += chunk) {
      // On SQLite each statement runs in the process and its promise resolves at once: without a
      // turn, the 200 lookups of a 100,000-component revision held the event loop ~150 ms.
      if (i > 0) await turn();
      const rows = await db
        .selectFrom('component_packages as cp')
        .innerJoin('vuln_matches as m', 'm.package_version_id', 'cp.package_version_id')
        .innerJoin('vuln_records as r', 'r.id', 'm.record_id')
        .select(['cp.component_id', 'r.vuln_key'])
        .where(inList(dialect, 'cp.component_id', componentIds.slice(i, i + chunk), 'integer'))
        .where('r.withdrawn', 'is', null)
        .execute();
      collectMatches(rows, out);
    }
    return out;
  },

  /**
   * Component id → the alias groups its package version matches, for every component of the
   * organisation that matches any (live records only): one query for a refresh of many products,
   * where reading each product's components' matches took 20 queries a product.
   */
  async matchesOfOrg(db: Executor, orgId: string): Promise<Map<number, Set<string>>> {
    const rows = await db
      .selectFrom('vuln_matches as m')
      .innerJoin('vuln_records as r', 'r.id', 'm.record_id')
      .innerJoin('component_packages as cp', 'cp.package_version_id', 'm.package_version_id')
      .innerJoin('components as c', 'c.id', 'cp.component_id')
      .select(['cp.component_id', 'r.vuln_key'])
      .where('c.org', '=', orgNumber(orgId))
      .where('r.withdrawn', 'is', null)
      .execute();
    return collectMatches(rows, new Map());
  },

  ofProduct(db: Executor, productId: string): Promise<FindingRow[]> {
    return db.selectFrom('findings').selectAll().where('product_id', '=', productId).execute();
  },

  async insert(db: Executor, rows: readonly FindingRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK)
      await db
        .insertInto('findings')
        .values(rows.slice(i, i + CHUNK))
        .execute();
  },

  /**
   * Brings these findings of the product back (gone_at cleared) with each its own releases, match,
   * conditional and sources, CHUNK a statement: the values travel in the VALUES list beside the
   * key. A re-import of changed NVD records changes the evidence of every finding it made, each
   * its own (the record's criterion and range): grouped by value, that was a statement a finding.
   */
  async updateEach(
    db: Executor,
    productId: string,
    rows: ReadonlyArray<Pick<FindingRow, 'component_id' | 'vuln_key' | 'releases' | 'match' | 'conditional' | 'sources'>>,
  ): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      const values = sql.join(
        rows
          .slice(i, i + CHUNK)
          .map(
            (r) =>
              sql`(cast(${r.component_id} as integer), cast(${r.vuln_key} as text), cast(${r.releases} as text), cast(${r.match} as text), cast(${r.conditional} as integer), cast(${r.sources} as text))`,
          ),
      );
      await sql`update findings set gone_at = null, gone_with = null, releases = v.column3, match = v.column4,
          conditional = v.column5, sources = v.column6
        from (values ${values}) as v
        where findings.product_id = ${productId} and findings.component_id = v.column1 and findings.vuln_key = v.column2`.execute(db);
    }
  },

  /**
   * Sets `change` on the product's findings of these (component, vulnerability) pairs, CHUNK a
   * statement. The pairs are a VALUES list joined on the key: as a row-value IN list, PostgreSQL
   * compared each of the product's findings with every pair (17 ms a statement of 285).
   */
  async updateMany(
    db: Executor,
    productId: string,
    rows: ReadonlyArray<Pick<FindingRow, 'component_id' | 'vuln_key'>>,
    change: Partial<FindingRow>,
  ): Promise<void> {
    const assignments = sql.join(Object.entries(change).map(([column, value]) => sql`${sql.ref(column)} = ${value}`));
    for (let i = 0; i < rows.length; i += CHUNK) {
      const pairs = sql.join(rows.slice(i, i + CHUNK).map((r) => sql`(cast(${r.component_id} as integer), cast(${r.vuln_key} as text))`));
      // A VALUES list's columns are column1, column2 … on both SQLite and PostgreSQL.
      await sql`update findings set ${assignments} from (values ${pairs}) as v
        where findings.product_id = ${productId} and findings.component_id = v.column1 and findings.vuln_key = v.column2`.execute(db);
    }
  },

  /** The organisation's products whose latest revisions hold any of `componentIds`. */
  async productsHolding(db: Executor, orgId: string, componentIds: ReadonlySet<number>): Promise<string[]> {
    const revisions = await db
      .selectFrom('sbom_revisions as s')
      .innerJoin('sbom_members as m', 'm.sbom_id', 's.id')
      .select(['s.product_id', 'm.component_ids'])
      .where('s.org_id', '=', orgId)
      .where(isLatestRevision)
      .execute();
    const products = new Set<string>();
    for (const r of revisions)
      if (!products.has(r.product_id) && decodeIds(r.component_ids).some((id) => componentIds.has(id))) products.add(r.product_id);
    return [...products];
  },

  /** The components (by organisation) that point at any of `packageVersionIds`. */
  async componentsOf(db: Executor, packageVersionIds: readonly number[]): Promise<Map<string, Set<number>>> {
    const byOrg = new Map<string, Set<number>>();
    for (let i = 0; i < packageVersionIds.length; i += CHUNK) {
      const rows = await db
        .selectFrom('component_packages as cp')
        .innerJoin('components as c', 'c.id', 'cp.component_id')
        .innerJoin('organisations as o', 'o.number', 'c.org')
        .select(['o.id as org_id', 'c.id'])
        .where('cp.package_version_id', 'in', packageVersionIds.slice(i, i + CHUNK))
        .execute();
      for (const row of rows) {
        const set = byOrg.get(row.org_id) ?? new Set<number>();
        set.add(Number(row.id));
        byOrg.set(row.org_id, set);
      }
    }
    return byOrg;
  },

  /** The organisations and products that have findings of `vulnKeys` (their exploited state may have changed). */
  productsWith(db: Executor, vulnKeys: readonly string[]) {
    return db
      .selectFrom('findings')
      .select(['org_id', 'product_id'])
      .distinct()
      .where('vuln_key', 'in', vulnKeys)
      .where('gone_at', 'is', null)
      .execute();
  },

  /** The sort columns of a new finding: its group's exploited flag and scores. */
  async scoresOf(db: Executor, vulnKeys: readonly string[]) {
    const out = new Map<string, { exploited: number; cvss_score: number | null; epss_score: number | null }>();
    for (let i = 0; i < vulnKeys.length; i += CHUNK) {
      const rows = await db
        .selectFrom('vulnerabilities')
        .select(['vuln_key', 'exploited', 'cvss_score', 'epss_score'])
        .where('vuln_key', 'in', vulnKeys.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) out.set(r.vuln_key, { exploited: r.exploited, cvss_score: r.cvss_score, epss_score: r.epss_score });
    }
    return out;
  },
};
