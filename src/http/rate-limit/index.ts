import { MemoryRateLimitStore } from './memory-store.js';
import { RedisRateLimitStore } from './redis-store.js';
import type { RateLimitStore } from './store.js';

export type { RateLimitDecision, RateLimitStore } from './store.js';
export { MemoryRateLimitStore } from './memory-store.js';
export { RedisRateLimitStore } from './redis-store.js';

interface Logger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** REDIS_URL unset → in-process windows; set → windows shared through Redis. */
export async function createRateLimitStore(redisUrl: string | null, log?: Logger): Promise<RateLimitStore> {
  if (!redisUrl) return new MemoryRateLimitStore();
  const store = new RedisRateLimitStore(redisUrl, {
    onStateChange: (state, error) => {
      if (state === 'degraded') log?.warn({ err: error }, 'Redis unreachable: rate limits are per instance until it is back');
      else log?.info({}, 'Redis reachable again: rate limits are shared across instances');
    },
  });
  // Start even when Redis is down (requests are served with per-instance limits meanwhile).
  await store.waitUntilReady().catch(() => log?.warn({}, 'Redis not reachable at start: rate limits are per instance until it is'));
  return store;
}
