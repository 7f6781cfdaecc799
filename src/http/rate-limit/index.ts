import { MemoryRateLimitStore } from './memory-store.js';
import type { RateLimitStore } from './store.js';

export type { RateLimitDecision, RateLimitStore } from './store.js';
export { MemoryRateLimitStore } from './memory-store.js';

/** REDIS_URL unset → in-process windows. */
export async function createRateLimitStore(redisUrl: string | null): Promise<RateLimitStore> {
  if (redisUrl) throw new Error('REDIS_URL is not supported yet');
  return new MemoryRateLimitStore();
}
