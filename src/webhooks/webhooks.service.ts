import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import type { WebhookDeliveryStatus, WebhookEndpointRow, WebhookEndpointStatus } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { deliveriesRepo } from './deliveries.repo.js';
import { endpointsRepo } from './endpoints.repo.js';
import { EVENT_TYPES, isEventType } from './event-types.js';
import type { WebhookSecrets } from './secret-storage.js';
import { generateSecret } from './signing.js';
import { resolveTarget, systemLookup, type Lookup } from './ssrf.js';
import { assertStorableText } from '../shared/storable-text.js';

/** An endpoint as administrators see it: never its secret. */
export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  status: WebhookEndpointStatus;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  failing_since: string | null;
  /** While a rotated-out secret is still signed with (both signatures are sent). */
  previous_secret_expires_at: string | null;
}

/** Printed once, when an endpoint is added or its secret rotated. */
export interface IssuedSecret extends EndpointView {
  secret: string;
}

export interface AttemptView {
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export function toEndpointView(row: WebhookEndpointRow): EndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.event_types === '*' ? ['*'] : row.event_types.split(','),
    status: row.status,
    created_at: row.created_at,
    disabled_at: row.disabled_at,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since,
    previous_secret_expires_at: row.previous_secret_expires_at,
  };
}

/** "a,b" → the canonical filter; absent or "*" → every event. */
export function parseEventFilter(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '' || raw.trim() === '*') return '*';
  const types = [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  for (const type of types) {
    if (!isEventType(type)) throw new AppError('validation_failed', `unknown event type "${type}" (known: ${EVENT_TYPES.join(', ')})`);
  }
  return types.join(',');
}

const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'succeeded', 'failed'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createWebhookService(
  database: Database,
  orgs: OrgService,
  options: { allowPrivate: boolean; lookup?: Lookup; secrets: WebhookSecrets; clock?: Clock },
) {
  const clock = options.clock ?? systemClock;
  const policy = { allowPrivate: options.allowPrivate, lookup: options.lookup ?? systemLookup };

  async function requireEndpoint(orgId: string, id: string): Promise<WebhookEndpointRow> {
    // Another organisation's endpoint (or a malformed id) is simply not found.
    const row = UUID.test(id) ? await endpointsRepo.findInOrg(database.db, orgId, id.toLowerCase()) : undefined;
    if (!row) throw new AppError('not_found', `no webhook endpoint with id "${id}"`);
    return row;
  }

  return {
    async addEndpoint(input: { org: string; url: string; events?: string; actor?: string }): Promise<IssuedSecret> {
      assertStorableText({ url: input.url, events: input.events });
      const org = await orgs.requireOrg(input.org);
      const eventTypes = parseEventFilter(input.events);
      const target = await resolveTarget(input.url, policy);
      const secret = generateSecret();
      const sealed = options.secrets.seal(secret);
      const now = iso(clock());
      const row: WebhookEndpointRow = {
        id: randomUUID(),
        org_id: org.id,
        url: target.url.toString(),
        event_types: eventTypes,
        secret: sealed,
        previous_secret: null,
        previous_secret_expires_at: null,
        status: 'active',
        disabled_at: null,
        disabled_reason: null,
        failing_since: null,
        created_at: now,
      };
      await database.transaction(async (trx) => {
        await endpointsRepo.insert(trx, row);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: input.actor ?? 'cli', action: 'webhook.endpoint_added', subject: row.id, details: { url: row.url, events: eventTypes } },
          now,
        );
      });
      return { ...toEndpointView(row), secret };
    },

    async listEndpoints(orgSlug: string): Promise<EndpointView[]> {
      const org = await orgs.requireOrg(orgSlug);
      return (await endpointsRepo.listByOrg(database.db, org.id)).map(toEndpointView);
    },

    /** A new secret; the old one keeps signing (beside the new) for `graceMs`. */
    async rotateSecret(input: { org: string; id: string; graceMs: number; actor?: string }): Promise<IssuedSecret> {
      const org = await orgs.requireOrg(input.org);
      const row = await requireEndpoint(org.id, input.id);
      const now = clock();
      const secret = generateSecret();
      const change = {
        secret: options.secrets.seal(secret),
        // Still sealed as stored: the old secret is never in the clear here.
        previous_secret: input.graceMs > 0 ? row.secret : null,
        previous_secret_expires_at: input.graceMs > 0 ? iso(new Date(now.getTime() + input.graceMs)) : null,
      };
      await database.transaction(async (trx) => {
        await endpointsRepo.rotate(trx, row.id, change);
        await appendRegistryEntry(
          trx,
          org.id,
          {
            actor: input.actor ?? 'cli',
            action: 'webhook.secret_rotated',
            subject: row.id,
            details: { grace_until: change.previous_secret_expires_at },
          },
          iso(now),
        );
      });
      return { ...toEndpointView({ ...row, ...change }), secret };
    },

    /** Stops deliveries to the endpoint; its pending deliveries end as failed. */
    async disableEndpoint(input: { org: string; id: string; actor?: string }): Promise<EndpointView> {
      const org = await orgs.requireOrg(input.org);
      const row = await requireEndpoint(org.id, input.id);
      if (row.status !== 'active') throw new AppError('conflict', `webhook endpoint ${row.id} is already disabled`);
      const now = iso(clock());
      const reason = 'disabled by an administrator';
      await database.transaction(async (trx) => {
        if (!(await endpointsRepo.disable(trx, row.id, reason, now)))
          throw new AppError('conflict', `webhook endpoint ${row.id} is already disabled`);
        await deliveriesRepo.failPendingOf(trx, row.id, 'endpoint disabled', now);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: input.actor ?? 'cli', action: 'webhook.endpoint_disabled', subject: row.id, details: { url: row.url } },
          now,
        );
      });
      return toEndpointView({ ...row, status: 'disabled', disabled_at: now, disabled_reason: reason });
    },

    /** One endpoint of the organisation (never its secret); another organisation's is not found. */
    async getEndpoint(orgSlug: string, id: string): Promise<EndpointView> {
      const org = await orgs.requireOrg(orgSlug);
      return toEndpointView(await requireEndpoint(org.id, id));
    },

    /**
     * Delivers to a disabled endpoint again (its URL is checked anew, as at adding); deliveries
     * that failed meanwhile stay failed and can be replayed.
     */
    async enableEndpoint(input: { org: string; id: string; actor?: string }): Promise<EndpointView> {
      const org = await orgs.requireOrg(input.org);
      const row = await requireEndpoint(org.id, input.id);
      if (row.status === 'active') throw new AppError('conflict', `webhook endpoint ${row.id} is already enabled`);
      await resolveTarget(row.url, policy);
      const now = iso(clock());
      await database.transaction(async (trx) => {
        if (!(await endpointsRepo.enable(trx, row.id))) throw new AppError('conflict', `webhook endpoint ${row.id} is already enabled`);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: input.actor ?? 'cli', action: 'webhook.endpoint_enabled', subject: row.id, details: { url: row.url } },
          now,
        );
      });
      return toEndpointView({ ...row, status: 'active', disabled_at: null, disabled_reason: null, failing_since: null });
    },

    /** Removes the endpoint with its delivery log; the events stay in the outbox (other endpoints may have them). */
    async deleteEndpoint(input: { org: string; id: string; actor?: string }): Promise<void> {
      const org = await orgs.requireOrg(input.org);
      const row = await requireEndpoint(org.id, input.id);
      const now = iso(clock());
      await database.transaction(async (trx) => {
        if (!(await endpointsRepo.remove(trx, row.id))) throw new AppError('not_found', `no webhook endpoint with id "${input.id}"`);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: input.actor ?? 'cli', action: 'webhook.endpoint_deleted', subject: row.id, details: { url: row.url } },
          now,
        );
      });
    },

    /** The delivery log, newest first, each delivery with every attempt. */
    async listDeliveries(input: { org: string; endpoint?: string; status?: string; limit?: number }) {
      const org = await orgs.requireOrg(input.org);
      const endpointId = input.endpoint === undefined ? undefined : (await requireEndpoint(org.id, input.endpoint)).id;
      if (input.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(input.status)) {
        throw new AppError('validation_failed', `status must be one of: ${DELIVERY_STATUSES.join(', ')}`);
      }
      const rows = await deliveriesRepo.list(database.db, org.id, {
        endpointId,
        status: input.status as WebhookDeliveryStatus | undefined,
        limit: input.limit ?? 50,
      });
      const attempts = await deliveriesRepo.attemptsOf(
        database.db,
        rows.map((r) => r.id),
      );
      return rows.map((row) => ({
        ...row,
        attempt_log: attempts
          .filter((a) => a.delivery_id === row.id)
          .map(
            (a): AttemptView => ({ attempted_at: a.attempted_at, status_code: a.status_code, duration_ms: a.duration_ms, error: a.error }),
          ),
      }));
    },

    /** Sends a delivery again (same webhook-id and body), with a fresh 24 h of retries. */
    async replay(input: { org: string; delivery: string; actor?: string /** Only a delivery to this endpoint. */; endpoint?: string }) {
      const org = await orgs.requireOrg(input.org);
      const row = UUID.test(input.delivery) ? await deliveriesRepo.findInOrg(database.db, org.id, input.delivery.toLowerCase()) : undefined;
      if (!row || (input.endpoint !== undefined && row.endpoint_id !== input.endpoint.toLowerCase()))
        throw new AppError('not_found', `no webhook delivery with id "${input.delivery}"`);
      const endpoint = await requireEndpoint(org.id, row.endpoint_id);
      if (endpoint.status !== 'active')
        throw new AppError('conflict', `webhook endpoint ${endpoint.id} is disabled; add a new endpoint to receive events again`);
      const now = iso(clock());
      await database.transaction(async (trx) => {
        await deliveriesRepo.requeue(trx, row.id, now);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: input.actor ?? 'cli', action: 'webhook.delivery_replayed', subject: row.id, details: { event_id: row.event_id } },
          now,
        );
      });
      return { id: row.id, event_id: row.event_id, endpoint_id: row.endpoint_id, status: 'pending' as const, next_attempt_at: now };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
