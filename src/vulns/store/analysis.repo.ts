import type { Executor } from '../../db/index.js';
import type { AnalysisRulesTable, FindingAnalysesTable } from '../../db/schema-vulns.js';
import { purlColumn } from '../../sbom/store/components.repo.js';

// Analyses (per product and vulnerability), rules for findings that appear later, and the
// signals raised for exploited findings.

const CHUNK = 500;

export interface ExploitedCandidate {
  vuln_key: string;
  cve: string | null;
  euvd: string | null;
  summary: string | null;
  cisa_kev: string | null;
  eu_kev: string | null;
  /** JSON: {date_added, sources, euvd} when in the EUVD's exploited list. */
  euvd_exploited: string | null;
  name: string;
  version: string | null;
  purl: string | null;
  releases: string;
}

export const analysisRepo = {
  /** The organisation's live findings of the vulnerability: the product (id, SKU) and component purl of each. */
  liveFindingsOf(db: Executor, orgId: string, vulnKey: string) {
    return db
      .selectFrom('findings as f')
      .innerJoin('products as p', 'p.id', 'f.product_id')
      .innerJoin('components as c', 'c.id', 'f.component_id')
      .select(['p.id', 'p.sku', purlColumn('c').as('purl')])
      .where('f.org_id', '=', orgId)
      .where('f.vuln_key', '=', vulnKey)
      .where('f.gone_at', 'is', null)
      .execute();
  },

  analysis(db: Executor, productId: string, vulnKey: string) {
    return db
      .selectFrom('finding_analyses')
      .selectAll()
      .where('product_id', '=', productId)
      .where('vuln_key', '=', vulnKey)
      .executeTakeFirst();
  },

  async save(db: Executor, row: FindingAnalysesTable): Promise<void> {
    const { org_id: _, product_id: __, vuln_key: ___, ...change } = row;
    await db
      .insertInto('finding_analyses')
      .values(row)
      .onConflict((oc) => oc.columns(['org_id', 'product_id', 'vuln_key']).doUpdateSet(change))
      .execute();
  },

  rulesFor(db: Executor, orgId: string, vulnKeys: readonly string[]) {
    return db
      .selectFrom('analysis_rules')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('vuln_key', 'in', vulnKeys)
      .orderBy('created_at', 'desc')
      .execute();
  },

  async insertRule(db: Executor, row: AnalysisRulesTable): Promise<void> {
    await db.insertInto('analysis_rules').values(row).execute();
  },

  /** Component id → purl. */
  async purlsOf(db: Executor, componentIds: readonly number[]): Promise<Map<number, string | null>> {
    const out = new Map<number, string | null>();
    for (let i = 0; i < componentIds.length; i += CHUNK) {
      const rows = await db
        .selectFrom('components as c')
        .select(['c.id', purlColumn('c').as('purl')])
        .where('c.id', 'in', componentIds.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) out.set(Number(r.id), r.purl);
    }
    return out;
  },

  /**
   * The product's live exploited findings with no signal raised yet and no analysis ruling them
   * out (not_affected, false_positive): one per vulnerability, its first component.
   */
  async exploitedUnsignalled(db: Executor, productId: string): Promise<ExploitedCandidate[]> {
    const rows = await db
      .selectFrom('findings as f')
      .innerJoin('vulnerabilities as v', 'v.vuln_key', 'f.vuln_key')
      .innerJoin('components as c', 'c.id', 'f.component_id')
      .leftJoin('finding_analyses as a', (join) => join.onRef('a.product_id', '=', 'f.product_id').onRef('a.vuln_key', '=', 'f.vuln_key'))
      .leftJoin('exploited_signals as s', (join) => join.onRef('s.product_id', '=', 'f.product_id').onRef('s.vuln_key', '=', 'f.vuln_key'))
      .select([
        'f.vuln_key',
        'v.cve',
        'v.euvd',
        'v.summary',
        'v.cisa_kev',
        'v.eu_kev',
        'v.euvd_exploited',
        'c.name',
        'c.version',
        purlColumn('c').as('purl'),
        'f.releases',
      ])
      .where('f.product_id', '=', productId)
      .where('f.gone_at', 'is', null)
      // a conditional finding never raises a signal by itself (firmware.md)
      .where('f.conditional', '=', 0)
      .where('v.exploited', '=', 1)
      .where('s.vuln_key', 'is', null)
      .where((eb) => eb.or([eb('a.state', 'is', null), eb('a.state', 'not in', ['not_affected', 'false_positive'])]))
      .orderBy('f.vuln_key')
      .orderBy('c.name')
      .execute();
    const first = new Map<string, ExploitedCandidate>();
    for (const r of rows) if (!first.has(r.vuln_key)) first.set(r.vuln_key, r);
    return [...first.values()];
  },

  async signalled(db: Executor, productId: string, vulnKey: string): Promise<boolean> {
    const row = await db
      .selectFrom('exploited_signals')
      .select('signal_id')
      .where('product_id', '=', productId)
      .where('vuln_key', '=', vulnKey)
      .executeTakeFirst();
    return row !== undefined;
  },

  async recordSignal(
    db: Executor,
    row: { org_id: string; product_id: string; vuln_key: string; signal_id: string; raised_at: string },
  ): Promise<void> {
    await db.insertInto('exploited_signals').values(row).execute();
  },
};
