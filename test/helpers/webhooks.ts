import { loadConfig } from '../../src/config.js';
import { createDispatcher } from '../../src/webhooks/dispatcher.js';
import { createScheduler } from '../../src/clocks/scheduler.js';
import { webhookSecrets } from '../../src/webhooks/secret-storage.js';
import type { Lookup } from '../../src/webhooks/ssrf.js';
import { createWebhookService } from '../../src/webhooks/webhooks.service.js';
import { TEST_CONSOLE_SECRET, type Harness } from './app.js';

/** Test settings: private addresses allowed (the receiver is on 127.0.0.1), short timeout and backoff. */
export const TEST_WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_TIMEOUT_MS: '400',
  WEBHOOK_RETRY_BASE_MS: '60000',
  WEBHOOK_RETRY_MAX_MS: '3600000',
};

/** The webhook service, dispatcher and scheduler on the harness's database and clock. */
export function webhookParts(h: Harness, env: Record<string, string> = {}, lookup?: Lookup) {
  const config = loadConfig({ ...TEST_WEBHOOK_ENV, ...env }).webhooks;
  const clock = h.clock.now;
  // The harness's console key (test/helpers/app.ts), so these parts and h.webhooks read each other's secrets.
  const secrets = webhookSecrets(TEST_CONSOLE_SECRET);
  return {
    config,
    webhooks: createWebhookService(h.database, h.orgs, { allowPrivate: config.allowPrivate, lookup, secrets, clock }),
    dispatcher: createDispatcher({ database: h.database, config, secrets, clock, lookup, random: () => 0.5 }),
    scheduler: createScheduler({ database: h.database, intervalMs: config.schedulerIntervalMs, clock }),
  };
}
