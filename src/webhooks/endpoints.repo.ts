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

  /** Enables a disabled endpoint with a fresh record of failures; false when it was active already. */
  async enable(trx: Trx, id: string): Promise<boolean> {
    const result = await trx
      .updateTable('webhook_endpoints')
      .set({ status: 'active', disabled_at: null, disabled_reason: null, failing_since: null })
      .where('id', '=', id)
      .where('status', '=', 'disabled')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Deletes the endpoint, its deliveries and their attempts; false when it was gone already. */
  async remove(trx: Trx, id: string): Promise<boolean> {
    const deliveries = trx.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id);
    await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveries).execute();
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    const result = await trx.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
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
