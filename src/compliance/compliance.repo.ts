import type { Executor } from '../db/index.js';
import type { ScoreCase, ScoreProduct } from './score.js';

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
};
