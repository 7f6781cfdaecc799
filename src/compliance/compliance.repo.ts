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
      ])
      .where('org_id', '=', orgId)
      .orderBy('incident_number')
      .execute();
    return rows.map((r) => ({ ...r, notifiable: Number(r.notifiable) === 1 }));
  },

  products(db: Executor, orgId: string): Promise<ScoreProduct[]> {
    return db.selectFrom('products').select(['sku', 'status', 'sbom_status', 'end_of_support']).where('org_id', '=', orgId).orderBy('sku').execute();
  },
};
