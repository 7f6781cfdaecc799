import { randomUUID } from 'node:crypto';
import type { Executor, Trx } from '../db/index.js';
import { EVENT_TYPES, type EventType } from './event-types.js';

export { EVENT_TYPES, type EventType };

/**
 * Keys that never go into a payload (webhooks.md): secrets, digests, the reporter's identity or
 * contact, case notes, report drafts. Checked at every emission, at any depth, so a caller that
 * passes a whole row fails loudly in its tests instead of leaking in production.
 */
const FORBIDDEN_KEY = /secret|digest|reporter|contact|note|draft|password|token/i;

function assertPublishable(value: unknown, path: string): void {
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (FORBIDDEN_KEY.test(key)) throw new Error(`webhook payload may not carry "${path}${key}"`);
    assertPublishable(inner, `${path}${key}.`);
  }
}

export interface EmitOptions {
  /** Clock events: an event with this key is written at most once, ever (the scheduler's idempotence). */
  dedupKey?: string;
}

/** The dedup keys among `keys` that already have an event (so a scheduler tick does not rewrite them). */
export async function existingDedupKeys(db: Executor, keys: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await db
      .selectFrom('webhook_events')
      .select('dedup_key')
      .where('dedup_key', 'in', keys.slice(i, i + 500))
      .execute();
    for (const row of rows) found.add(row.dedup_key!);
  }
  return found;
}

/** The exact body of every delivery of the event: `{"type","timestamp","data"}`. */
export function eventBody(type: EventType, at: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: at, data });
}

/**
 * Writes an event to the outbox inside the caller's transaction, with one pending delivery per
 * active endpoint of the organisation that subscribes to `type`: the event commits with the
 * change that causes it, or not at all. Returns the event id (the `webhook-id` header), or null
 * when no endpoint subscribes (and it has no `dedupKey`) or an event with the same `dedupKey` exists.
 */
export async function emitEvent(
  trx: Trx,
  orgId: string,
  type: EventType,
  data: Record<string, unknown>,
  at: string,
  options: EmitOptions = {},
): Promise<string | null> {
  if (!(EVENT_TYPES as readonly string[]).includes(type)) throw new Error(`unknown webhook event type "${type}"`);
  assertPublishable(data, '');
  const endpoints = await trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'event_types'])
    .where('org_id', '=', orgId)
    .where('status', '=', 'active')
    .execute();
  const subscribed = endpoints.filter((e) => subscribes(e.event_types, type));
  // Nobody listens: nothing to deliver, so nothing to write (intake in case mode stays as short
  // as it was for organisations without webhooks). Clock events are still written, since their
  // row is what makes the threshold fire once.
  if (subscribed.length === 0 && options.dedupKey === undefined) return null;
  const event = {
    id: `msg_${randomUUID().replaceAll('-', '')}`,
    org_id: orgId,
    type,
    payload: eventBody(type, at, data),
    created_at: at,
    dedup_key: options.dedupKey ?? null,
  };
  if (options.dedupKey === undefined) {
    await trx.insertInto('webhook_events').values(event).execute();
  } else {
    // On PostgreSQL a concurrent insert of the same key waits for the other transaction and then
    // does nothing: exactly one of two instances writes the event and its deliveries.
    const inserted = await trx
      .insertInto('webhook_events')
      .values(event)
      .onConflict((oc) => oc.column('dedup_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return null;
  }
  if (subscribed.length > 0) {
    await trx
      .insertInto('webhook_deliveries')
      .values(
        subscribed.map((e) => ({
          id: randomUUID(),
          org_id: orgId,
          event_id: event.id,
          endpoint_id: e.id,
          status: 'pending' as const,
          next_attempt_at: at,
          retry_from: at,
          created_at: at,
        })),
      )
      .execute();
  }
  return event.id;
}

/** An endpoint's filter ("*" or "a,b") admits `type`. */
export function subscribes(filter: string, type: string): boolean {
  return filter === '*' || filter.split(',').includes(type);
}
