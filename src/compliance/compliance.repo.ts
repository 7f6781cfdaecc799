import type { Executor } from '../db/index.js';
import { sql } from 'kysely';
import type { ScoreCase, ScoreExploited, ScoreProduct } from './score.js';

/** Just the columns the score rules read, for one organisation. */
export const complianceRepo = {
  async cases(db: Executor, orgId: string): Promise<ScoreCase[]> {
    const rows = await db
      .selectFrom('cases')
      .select([
        'incident_number',
        'title',
        'notifiable',
        'status',
        'aware_at',
        'early_warning_deadline',
        'full_notification_deadline',
        'early_warning_sent_at',
        'notification_sent_at',
        'kind',
        'fix_available_at',
        'id',
      ])
      .where('org_id', '=', orgId)
      .orderBy('incident_number')
      .execute();
    // Intermediate and final reports of the open notifiable cases, for rule 2 (art14.md).
    const open = rows.filter((r) => r.status === 'open' && Number(r.notifiable) === 1).map((r) => r.id);
    const reports = open.length
      ? await db
          .selectFrom('case_reports')
          .select(['case_id', 'stage', 'seq', 'due_at', 'filed_at'])
          .where('case_id', 'in', open)
          .where('stage', 'in', ['intermediate', 'final'])
          .execute()
      : [];
    return rows.map(({ id, ...r }) => {
      const own = reports.filter((p) => p.case_id === id);
      return {
        ...r,
        notifiable: Number(r.notifiable) === 1,
        final_filed_at: own.find((p) => p.stage === 'final')?.filed_at ?? null,
        intermediates: own
          .filter((p) => p.stage === 'intermediate')
          .map((p) => ({ seq: Number(p.seq), due: p.due_at!, filed_at: p.filed_at })),
      };
    });
  },

  products(db: Executor, orgId: string): Promise<ScoreProduct[]> {
    return db
      .selectFrom('products')
      .select(['sku', 'status', 'sbom_status', 'end_of_support'])
      .where('org_id', '=', orgId)
      .orderBy('sku')
      .execute();
  },

  /** Live findings of exploited vulnerabilities, with whether an analysis rules them out or a case covers them (rule 5). */
  async exploited(db: Executor, orgId: string): Promise<ScoreExploited[]> {
    const rows = await db
      .selectFrom('findings as f')
      .innerJoin('products as p', 'p.id', 'f.product_id')
      .leftJoin('vulnerabilities as v', 'v.vuln_key', 'f.vuln_key')
      .leftJoin('finding_analyses as a', (join) => join.onRef('a.product_id', '=', 'f.product_id').onRef('a.vuln_key', '=', 'f.vuln_key'))
      .leftJoin('exploited_signals as es', (join) =>
        join.onRef('es.product_id', '=', 'f.product_id').onRef('es.vuln_key', '=', 'f.vuln_key'),
      )
      .leftJoin('signals as raised', 'raised.id', 'es.signal_id')
      .select([
        'p.sku',
        'f.vuln_key',
        'a.state',
        'raised.status as raised_status',
        sql<number>`(select count(*) from cases c inner join signals s on s.id = c.signal_id where c.product_id = f.product_id and v.cve is not null and s.cve = v.cve)`.as(
          'cases_naming',
        ),
      ])
      .distinct()
      .where('f.org_id', '=', orgId)
      .where('f.gone_at', 'is', null)
      .where('f.exploited', '=', 1)
      // conditional findings (firmware.md) are counted apart, never in the score
      .where('f.conditional', '=', 0)
      .orderBy('p.sku')
      .orderBy('f.vuln_key')
      .execute();
    return rows.map((r) => ({
      sku: r.sku,
      vulnerability: r.vuln_key,
      ruled_out: r.state === 'not_affected' || r.state === 'false_positive',
      covered_by_case: r.raised_status === 'CASE_OPENED' || r.raised_status === 'MERGED' || Number(r.cases_naming) > 0,
    }));
  },
};
