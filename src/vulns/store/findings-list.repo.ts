import { type SelectQueryBuilder, sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { DB } from '../../db/schema.js';
import { purlColumn } from '../../sbom/store/components.repo.js';

// The one way an organisation's live findings are listed (`finding list`, the Vulnerabilities
// page, `vuln show --org`, VEX), filtered in the query, in one order: exploited first, then CVSS,
// then EPSS (missing scores last), ties by vulnerability, then product and component as stored
// (their ids). That order is `findings_order` (org_id, exploited desc, cvss_score desc,
// epss_score desc, vuln_key, product_id, component_id): a page of 50 out of 100,000 findings is
// one walk of it.

export interface FindingsQuery {
  orgId: string;
  productId?: string;
  /** One vulnerability (its group key, `vulnerabilities.vuln_key`). */
  vulnKey?: string;
  /** A release version: findings whose latest revision of that release holds the component. */
  release?: string;
  exploited?: boolean;
  /** CVSS base score bounds, [min, max) ; `null` for findings without a score. */
  cvss?: { min: number; below: number } | null;
  /** Analysis states to keep; `in_triage` also keeps findings never analysed. */
  states?: readonly string[];
  /** Only products on the market at this instant (active, end of support not passed). */
  onMarketAt?: string;
  /** The conditional findings instead of the others (firmware.md: they are counted apart). */
  conditional?: boolean;
}

/** The columns a finding is shown with (services/findings.service.ts makes them a FindingView). */
export interface FindingListRow {
  vuln_key: string;
  releases: string;
  first_seen_at: string;
  exploited: number;
  cvss_score: number | null;
  epss_score: number | null;
  sku: string;
  name: string;
  version: string | null;
  purl: string | null;
  aliases: string | null;
  cve: string | null;
  euvd: string | null;
  summary: string | null;
  cvss_vector: string | null;
  epss_percentile: number | null;
  cisa_kev: string | null;
  eu_kev: string | null;
  euvd_exploited: string | null;
  state: string | null;
  justification: string | null;
  responses: string | null;
  detail: string | null;
  match: string | null;
  sources: string;
  /** Who set the analysis (finding_analyses.updated_by); null when none. */
  updated_by: string | null;
}

/** `%` and `_` of a LIKE pattern taken literally (escape character `!`). */
const likeLiteral = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);

type Filtered = SelectQueryBuilder<DB & { f: DB['findings'] }, 'f', object>;

function filtered(db: Executor, q: FindingsQuery): Filtered {
  let query: Filtered = db
    .selectFrom('findings as f')
    .where('f.org_id', '=', q.orgId)
    .where('f.gone_at', 'is', null)
    .where('f.conditional', '=', q.conditional ? 1 : 0);
  // Analyses are joined only to filter by state: a finding never analysed is in triage.
  if (q.states !== undefined) {
    const states = [...q.states];
    // The analysis's columns stay out of the selection: the type forgets the join.
    query = query
      .leftJoin('finding_analyses as a', (join) =>
        join.onRef('a.org_id', '=', 'f.org_id').onRef('a.product_id', '=', 'f.product_id').onRef('a.vuln_key', '=', 'f.vuln_key'),
      )
      .where((eb) =>
        states.includes('in_triage') ? eb.or([eb('a.state', 'is', null), eb('a.state', 'in', states)]) : eb('a.state', 'in', states),
      ) as unknown as Filtered;
  }
  if (q.productId !== undefined) query = query.where('f.product_id', '=', q.productId);
  if (q.vulnKey !== undefined) query = query.where('f.vuln_key', '=', q.vulnKey);
  // `releases` is the canonical JSON array of version strings: a version is in it as "…", quoted.
  if (q.release !== undefined)
    query = query.where(sql<boolean>`f.releases like ${`%${likeLiteral(JSON.stringify(q.release))}%`} escape '!'`);
  if (q.exploited !== undefined) query = query.where('f.exploited', '=', q.exploited ? 1 : 0);
  if (q.cvss === null) query = query.where('f.cvss_score', 'is', null);
  else if (q.cvss !== undefined) query = query.where('f.cvss_score', '>=', q.cvss.min).where('f.cvss_score', '<', q.cvss.below);
  if (q.onMarketAt !== undefined) {
    const at = q.onMarketAt;
    query = query.where('f.product_id', 'in', (eb) =>
      eb
        .selectFrom('products')
        .select('id')
        .where('org_id', '=', q.orgId)
        .where('status', '=', 'active')
        .where((e) => e.or([e('end_of_support', 'is', null), e('end_of_support', '>', at)])),
    );
  }
  return query;
}

export const findingsListRepo = {
  /**
   * The findings the query keeps, in the order above: `page.limit` of them from `page.offset`,
   * or all without a page. The page's keys are found on `findings` alone (a deep page skips
   * index entries, not joined rows), then joined to what a finding is shown with.
   */
  list(db: Executor, q: FindingsQuery, page?: { offset: number; limit: number }): Promise<FindingListRow[]> {
    const keys = filtered(db, q)
      .select(['f.org_id', 'f.product_id', 'f.component_id', 'f.vuln_key', 'f.exploited', 'f.cvss_score', 'f.epss_score'])
      .orderBy('f.exploited', 'desc')
      .orderBy('f.cvss_score', (ob) => ob.desc().nullsLast())
      .orderBy('f.epss_score', (ob) => ob.desc().nullsLast())
      .orderBy('f.vuln_key')
      .orderBy('f.product_id')
      .orderBy('f.component_id')
      .$if(page !== undefined, (qb) => qb.limit(page!.limit).offset(page!.offset));
    return db
      .selectFrom(keys.as('k'))
      .innerJoin('findings as f', (join) =>
        join
          .onRef('f.org_id', '=', 'k.org_id')
          .onRef('f.product_id', '=', 'k.product_id')
          .onRef('f.component_id', '=', 'k.component_id')
          .onRef('f.vuln_key', '=', 'k.vuln_key'),
      )
      .leftJoin('finding_analyses as a', (join) =>
        join.onRef('a.org_id', '=', 'f.org_id').onRef('a.product_id', '=', 'f.product_id').onRef('a.vuln_key', '=', 'f.vuln_key'),
      )
      .innerJoin('products as p', 'p.id', 'f.product_id')
      .innerJoin('components as c', 'c.id', 'f.component_id')
      .leftJoin('vulnerabilities as v', 'v.vuln_key', 'f.vuln_key')
      .select([
        'f.vuln_key',
        'f.releases',
        'f.first_seen_at',
        'f.exploited',
        'f.cvss_score',
        'f.epss_score',
        'p.sku',
        'c.name',
        'c.version',
        purlColumn('c').as('purl'),
        'v.aliases',
        'v.cve',
        'v.euvd',
        'v.summary',
        'v.cvss_vector',
        'v.epss_percentile',
        'v.cisa_kev',
        'v.eu_kev',
        'v.euvd_exploited',
        'a.state',
        'a.justification',
        'a.responses',
        'a.detail',
        'f.match',
        'f.sources',
        'a.updated_by',
      ])
      .orderBy('k.exploited', 'desc')
      .orderBy('k.cvss_score', (ob) => ob.desc().nullsLast())
      .orderBy('k.epss_score', (ob) => ob.desc().nullsLast())
      .orderBy('k.vuln_key')
      .orderBy('k.product_id')
      .orderBy('k.component_id')
      .execute() as Promise<FindingListRow[]>;
  },

  /** How many findings the filters keep. */
  async count(db: Executor, q: FindingsQuery): Promise<number> {
    const row = await filtered(db, q).select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
    return Number((row as { n: string }).n);
  },

  /** The product's live findings in brief: which releases hold each, exploited, and its state. */
  ofProduct(db: Executor, orgId: string, productId: string) {
    return filtered(db, { orgId, productId })
      .leftJoin('finding_analyses as a', (join) =>
        join.onRef('a.org_id', '=', 'f.org_id').onRef('a.product_id', '=', 'f.product_id').onRef('a.vuln_key', '=', 'f.vuln_key'),
      )
      .select(['f.releases', 'f.exploited', 'f.cvss_score', 'a.state'])
      .execute() as Promise<Array<{ releases: string; exploited: number; cvss_score: number | null; state: string | null }>>;
  },

  /** The latest revision of each release of the product, without its members (newest first). */
  latestRevisions(db: Executor, productId: string) {
    return db
      .selectFrom('sbom_revisions as s')
      .innerJoin('releases as r', 'r.id', 's.release_id')
      .select(['r.version as release', 's.revision', 's.ingested_at'])
      .where('s.product_id', '=', productId)
      .where(({ eb, selectFrom }) =>
        eb(
          's.revision',
          '=',
          selectFrom('sbom_revisions as l')
            .select((e) => e.fn.max('l.revision').as('latest'))
            .whereRef('l.release_id', '=', 's.release_id'),
        ),
      )
      .orderBy('s.ingested_at', 'desc')
      .execute();
  },
};
