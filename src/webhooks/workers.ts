import type { WebhookConfig } from '../config.js';
import type { Database } from '../db/index.js';
import type { Clock } from '../shared/time.js';
import { createDispatcher } from './dispatcher.js';
import { createScheduler } from './scheduler.js';
import { webhookSecrets } from './secret-storage.js';
import type { Lookup } from './ssrf.js';

export interface WebhookWorkers {
  /** Stops claiming and ticking; resolves once the sends in flight are recorded (within the send timeout). */
  stop(): Promise<void>;
}

/** The server's background half of webhooks: the dispatcher and the clock-event scheduler, on timers. */
export function startWebhookWorkers(deps: {
  database: Database;
  config: WebhookConfig;
  /** CONSOLE_SECRET (resolved): the key the endpoint secrets are sealed under. */
  consoleSecret: string | null;
  clock?: Clock;
  lookup?: Lookup;
  log?: { warn(obj: object, msg: string): void };
}): WebhookWorkers {
  const dispatcher = createDispatcher({ ...deps, secrets: webhookSecrets(deps.consoleSecret) });
  const scheduler = createScheduler({
    database: deps.database,
    intervalMs: deps.config.schedulerIntervalMs,
    clock: deps.clock,
    log: deps.log,
  });
  dispatcher.start();
  scheduler.start();
  return {
    async stop() {
      await Promise.all([scheduler.stop(), dispatcher.stop()]);
    },
  };
}
