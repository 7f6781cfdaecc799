import { randomUUID } from 'node:crypto';
import type { WebhookConfig } from '../config.js';
import type { Database } from '../db/index.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { retryDelay } from './backoff.js';
import { deliveriesRepo, type ClaimedDelivery, type DeliveryOutcome } from './deliveries.repo.js';
import { endpointsRepo } from './endpoints.repo.js';
import { postJson, type SendResult } from './send.js';
import { signHeaders } from './signing.js';
import type { WebhookSecrets } from './secret-storage.js';
import { resolveTarget, systemLookup, type Lookup } from './ssrf.js';

/** An endpoint whose every attempt has failed for this long is disabled (webhooks.md). */
export const DISABLE_AFTER_MS = 3 * 86_400_000;

export interface DispatcherDeps {
  database: Database;
  config: WebhookConfig;
  /** Opens the sealed endpoint secrets (CONSOLE_SECRET). */
  secrets: WebhookSecrets;
  clock?: Clock;
  lookup?: Lookup;
  log?: { warn(obj: object, msg: string): void };
  random?: () => number;
}

/**
 * Delivers pending webhook messages: claims due deliveries (one instance each, see
 * deliveriesRepo.claim), signs and POSTs them with at most `concurrency` in flight, and records
 * every attempt. It runs on a timer beside the API and never inside a request: a slow or dead
 * receiver costs an idle socket and a timer, nothing on the event loop.
 */
export function createDispatcher(deps: DispatcherDeps) {
  const { database, config } = deps;
  const clock = deps.clock ?? systemClock;
  const lookup = deps.lookup ?? systemLookup;
  const random = deps.random ?? Math.random;
  // A claim outlives any attempt (the send is cut at timeoutMs); only a dead dispatcher's lapses.
  const leaseMs = 2 * config.timeoutMs + 2_000;
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;

  async function attempt(delivery: ClaimedDelivery, token: string): Promise<void> {
    const startedAt = clock();
    let result: SendResult;
    try {
      const target = await resolveTarget(delivery.url, { allowPrivate: config.allowPrivate, lookup });
      const inGrace =
        delivery.previous_secret !== null &&
        delivery.previous_secret_expires_at !== null &&
        delivery.previous_secret_expires_at > iso(startedAt);
      const sealed = inGrace ? [delivery.secret, delivery.previous_secret!] : [delivery.secret];
      const secrets = sealed.map((stored) => deps.secrets.open(stored));
      const headers = signHeaders(secrets, delivery.event_id, startedAt, delivery.payload);
      result = await postJson(target, { ...headers }, delivery.payload, config.timeoutMs);
    } catch (error) {
      result = { status: null, error: error instanceof Error ? error.message : String(error), durationMs: 0 };
    }
    await record(delivery, token, startedAt, result);
  }

  async function record(delivery: ClaimedDelivery, token: string, startedAt: Date, result: SendResult): Promise<void> {
    const now = clock();
    const nowIso = iso(now);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const error = ok ? null : (result.error ?? `HTTP ${result.status}`);
    const attempts = delivery.attempts + 1;
    let outcome: DeliveryOutcome;
    if (ok) {
      outcome = {
        status: 'succeeded',
        last_attempt_at: iso(startedAt),
        last_status: result.status,
        last_error: null,
        completed_at: nowIso,
      };
    } else {
      const next = now.getTime() + retryDelay(attempts, config.retryBaseMs, config.retryMaxMs, random);
      const giveUp = next > Date.parse(delivery.retry_from) + config.retryWindowMs;
      outcome = giveUp
        ? { status: 'failed', last_attempt_at: iso(startedAt), last_status: result.status, last_error: error, completed_at: nowIso }
        : {
            status: 'pending',
            next_attempt_at: iso(new Date(next)),
            last_attempt_at: iso(startedAt),
            last_status: result.status,
            last_error: error,
            completed_at: null,
          };
    }
    await database.transaction(async (trx) => {
      await deliveriesRepo.insertAttempt(trx, {
        id: randomUUID(),
        delivery_id: delivery.id,
        attempted_at: iso(startedAt),
        duration_ms: result.durationMs,
        status_code: result.status,
        error,
      });
      await deliveriesRepo.settle(trx, delivery.id, token, outcome);
      if (ok) {
        await endpointsRepo.markHealthy(trx, delivery.endpoint_id);
        return;
      }
      const failingSince = await endpointsRepo.markFailing(trx, delivery.endpoint_id, nowIso);
      if (failingSince !== null && now.getTime() - Date.parse(failingSince) >= DISABLE_AFTER_MS) {
        const reason = `every delivery failed since ${failingSince}`;
        if (await endpointsRepo.disable(trx, delivery.endpoint_id, reason, nowIso))
          await deliveriesRepo.failPendingOf(trx, delivery.endpoint_id, 'endpoint disabled', nowIso);
      }
    });
  }

  function launch(delivery: ClaimedDelivery, token: string): Promise<void> {
    const running = attempt(delivery, token)
      .catch((error: unknown) => deps.log?.warn({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded'))
      .finally(() => inFlight.delete(running));
    inFlight.add(running);
    return running;
  }

  /** Claims what is due (up to the free concurrency) and starts sending it; returns the started sends. */
  async function poll(): Promise<Array<Promise<void>>> {
    const free = config.concurrency - inFlight.size;
    if (free <= 0) return [];
    const now = clock();
    const token = randomUUID();
    const claimed = await deliveriesRepo.claim(database, token, iso(now), iso(new Date(now.getTime() + leaseMs)), free);
    return claimed.map((delivery) => launch(delivery, token));
  }

  return {
    /** One round: claim what is due now, send it, wait for the outcomes. Returns how many were attempted. */
    async runOnce(): Promise<number> {
      const started = await poll();
      await Promise.all(started);
      return started.length;
    },

    /** Repeats runOnce until nothing is due (tests; with the injected clock standing still). */
    async drain(): Promise<number> {
      let total = 0;
      for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
      return total;
    },

    start(): void {
      if (timer) return;
      timer = setInterval(() => {
        if (polling) return;
        polling = true;
        poll()
          .catch((error: unknown) => deps.log?.warn({ err: error }, 'webhook dispatcher could not claim deliveries'))
          .finally(() => (polling = false));
      }, config.pollMs);
      timer.unref();
    },

    /** Stops claiming and waits for the sends in flight to be recorded (each ends within the timeout). */
    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      while (polling || inFlight.size > 0) {
        await Promise.allSettled([...inFlight]);
        if (polling) await new Promise((r) => setTimeout(r, 5));
      }
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
