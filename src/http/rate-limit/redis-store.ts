import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterRunning } from '../../shared/running-time.js';
import { MemoryRateLimitStore } from './memory-store.js';
import type { RateLimitDecision, RateLimitStore } from './store.js';

// The same exact sliding window as the in-process store, shared by every instance: a sorted set
// per bucket holds the accepted requests' times; one Lua script prunes, counts and records
// atomically, so concurrent instances never over-admit. Time comes from Redis (TIME), so
// instances with skewed clocks still share one window. Refused requests are not recorded.
const SLIDING_WINDOW = `
local now
if ARGV[4] ~= '' then
  now = tonumber(ARGV[4])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  return {0, 0, tonumber(oldest[2]) + window - now}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return {1, limit - count - 1, 0}
`;

export interface RedisStoreOptions {
  /** Prepended to every bucket key (tests isolate themselves with it). */
  keyPrefix?: string;
  /** Called once each time the store falls back to per-instance limits, and on recovery. */
  onStateChange?: (state: 'degraded' | 'ok', error?: unknown) => void;
  /** Tests only: a clock instead of Redis TIME. */
  now?: () => number;
  commandTimeoutMs?: number;
}

type SlidingWindowClient = Redis & {
  slidingWindow(key: string, limit: number, windowMs: number, member: string, now: string): Promise<[number, number, number]>;
};

export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: SlidingWindowClient;
  /** Serves while Redis is unreachable: limits become per instance, never a 500. */
  private readonly fallback: MemoryRateLimitStore;
  private degraded = false;
  private readonly prefix: string;
  private readonly instance = randomUUID();
  private counter = 0;
  private readonly commandTimeoutMs: number;

  constructor(
    url: string,
    private readonly options: RedisStoreOptions = {},
  ) {
    this.prefix = `cra:rl:${options.keyPrefix ?? ''}`;
    this.fallback = new MemoryRateLimitStore(options.now);
    this.commandTimeoutMs = options.commandTimeoutMs ?? 500;
    this.client = new Redis(url, {
      // Fail fast instead of queueing while disconnected: the fallback answers meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // No commandTimeout of ioredis's own: it counts time that passed, and on a busy host an
      // answer the event loop read late counted as Redis gone, each instance fell back to its own
      // limits and admitted more than the shared one. answered() bounds a command in running time.
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      lazyConnect: false,
    }) as SlidingWindowClient;
    this.client.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW });
    // Connection errors surface through commands; without a listener ioredis would log noise.
    this.client.on('error', () => {});
  }

  /** Resolves once connected (or rejects after `timeoutMs`); the store works either way. */
  async waitUntilReady(timeoutMs = 2_000): Promise<void> {
    if (this.client.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('Redis did not become ready')), timeoutMs);
      this.client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** A command's answer, or a failure once it has had none for `commandTimeoutMs` of running time (a frozen Redis). */
  private answered<T>(command: Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      const cancel = afterRunning(this.commandTimeoutMs, () => reject(new Error('Command timed out')));
      command.then(
        (value) => {
          cancel();
          resolve(value);
        },
        (error: unknown) => {
          cancel();
          reject(error);
        },
      );
    });
  }

  private setDegraded(degraded: boolean, error?: unknown): void {
    if (this.degraded === degraded) return;
    this.degraded = degraded;
    this.options.onStateChange?.(degraded ? 'degraded' : 'ok', error);
  }

  async consume(bucket: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    try {
      const member = `${this.instance}:${++this.counter}`;
      const now = this.options.now ? String(this.options.now()) : '';
      const [allowed, remaining, retryMs] = await this.answered(
        this.client.slidingWindow(this.prefix + bucket, limit, windowMs, member, now),
      );
      this.setDegraded(false);
      return {
        allowed: allowed === 1,
        limit,
        remaining,
        retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, Math.ceil(retryMs / 1000)),
      };
    } catch (error) {
      this.setDegraded(true, error);
      return this.fallback.consume(bucket, limit, windowMs);
    }
  }

  async health(): Promise<'ok' | 'degraded'> {
    try {
      await this.answered(this.client.ping());
      this.setDegraded(false);
      return 'ok';
    } catch (error) {
      this.setDegraded(true, error);
      return 'degraded';
    }
  }

  async close(): Promise<void> {
    await this.fallback.close();
    this.client.disconnect();
  }
}
