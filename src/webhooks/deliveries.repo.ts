import type { Database, Executor, Trx } from '../db/index.js';
import type { WebhookAttemptRow, WebhookDeliveryStatus } from '../db/schema.js';
import { skipLocked } from '../db/skip-locked.js';

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  org_id: string;
  event_id: string;
  endpoint_id: string;
  attempts: number;
  retry_from: string;
  payload: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
}

export interface DeliveryOutcome {
  status: WebhookDeliveryStatus;
  next_attempt_at?: string;
  last_attempt_at: string;
  last_status: number | null;
  last_error: string | null;
  completed_at: string | null;
}

export const deliveriesRepo = {
  /**
   * Claims up to `limit` due deliveries for `token` until `until`: pending ones whose time has
   * come and that nobody holds (or whose holder's claim lapsed: a dispatcher killed mid-send).
   */
  async claim(database: Database, token: string, now: string, until: string, limit: number): Promise<ClaimedDelivery[]> {
    const dueQuery = (db: Executor) =>
      db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
        .orderBy('next_attempt_at')
        .limit(limit);
    // Most polls find nothing due: a plain read answers them without a write transaction (which
    // on SQLite would queue behind the API's writes and invalidate its remembered keys).
    if (!(await dueQuery(database.db).executeTakeFirst())) return [];
    return database.transaction(async (trx) => {
      const due = dueQuery(trx);
      const claimed = await trx
        .updateTable('webhook_deliveries')
        .set({ claim_token: token, claimed_until: until })
        .where('id', 'in', skipLocked(due, database.dialect))
        .returning('id')
        .execute();
      if (claimed.length === 0) return [];
      return trx
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
        .innerJoin('webhook_endpoints as p', 'p.id', 'd.endpoint_id')
        .select([
          'd.id',
          'd.org_id',
          'd.event_id',
          'd.endpoint_id',
          'd.attempts',
          'd.retry_from',
          'e.payload',
          'p.url',
          'p.secret',
          'p.previous_secret',
          'p.previous_secret_expires_at',
        ])
        .where('d.claim_token', '=', token)
        .where('d.status', '=', 'pending')
        .execute();
    });
  },

  async insertAttempt(trx: Trx, attempt: WebhookAttemptRow): Promise<void> {
    await trx.insertInto('webhook_attempts').values(attempt).execute();
  },

  /** Applies an attempt's outcome, only while `token` still holds the delivery. */
  async settle(trx: Trx, id: string, token: string, outcome: DeliveryOutcome): Promise<boolean> {
    const result = await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ ...outcome, attempts: eb('attempts', '+', 1), claim_token: null, claimed_until: null }))
      .where('id', '=', id)
      .where('claim_token', '=', token)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Every pending delivery of a disabled endpoint ends, with the reason. */
  async failPendingOf(trx: Trx, endpointId: string, reason: string, now: string): Promise<void> {
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: reason, completed_at: now, claim_token: null, claimed_until: null })
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .execute();
  },

  list(db: Executor, orgId: string, filter: { endpointId?: string; status?: WebhookDeliveryStatus; limit: number }) {
    let query = db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .select([
        'd.id',
        'd.event_id',
        'd.endpoint_id',
        'e.type',
        'd.status',
        'd.attempts',
        'd.next_attempt_at',
        'd.last_attempt_at',
        'd.last_status',
        'd.last_error',
        'd.completed_at',
        'd.created_at',
      ])
      .where('d.org_id', '=', orgId);
    if (filter.endpointId) query = query.where('d.endpoint_id', '=', filter.endpointId);
    if (filter.status) query = query.where('d.status', '=', filter.status);
    return query.orderBy('d.created_at', 'desc').orderBy('d.id').limit(filter.limit).execute();
  },

  attemptsOf(db: Executor, deliveryIds: string[]): Promise<WebhookAttemptRow[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('attempted_at').execute();
  },

  findInOrg(db: Executor, orgId: string, id: string) {
    return db.selectFrom('webhook_deliveries').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  },

  async requeue(trx: Trx, id: string, now: string): Promise<void> {
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: now, retry_from: now, completed_at: null, claim_token: null, claimed_until: null })
      .where('id', '=', id)
      .execute();
  },
};
