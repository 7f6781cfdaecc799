import type { Executor, Trx } from '../db/index.js';
import type { WebhookEndpointRow } from '../db/schema.js';

export const endpointsRepo = {
  async insert(trx: Trx, row: WebhookEndpointRow): Promise<void> {
    await trx.insertInto('webhook_endpoints').values(row).execute();
  },

  listByOrg(db: Executor, orgId: string): Promise<WebhookEndpointRow[]> {
    return db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
  },

  findInOrg(db: Executor, orgId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    return db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  },

  async rotate(
    trx: Trx,
    id: string,
    change: Pick<WebhookEndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  ): Promise<void> {
    await trx.updateTable('webhook_endpoints').set(change).where('id', '=', id).execute();
  },

  /** Disables an active endpoint; false when it was not active (already disabled meanwhile). */
  async disable(trx: Trx, id: string, reason: string, now: string): Promise<boolean> {
    const result = await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_at: now, disabled_reason: reason })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async markHealthy(trx: Trx, id: string): Promise<void> {
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('id', '=', id)
      .where('failing_since', 'is not', null)
      .execute();
  },

  /** Starts (or continues) the endpoint's run of failures; returns when the run began. */
  async markFailing(trx: Trx, id: string, now: string): Promise<string | null> {
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: now })
      .where('id', '=', id)
      .where('failing_since', 'is', null)
      .execute();
    const row = await trx.selectFrom('webhook_endpoints').select(['failing_since', 'status']).where('id', '=', id).executeTakeFirst();
    return row?.status === 'active' ? row.failing_since : null;
  },
};
