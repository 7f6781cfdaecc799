import { retryAfterSeconds, type RateLimitDecision, type RateLimitStore } from './store.js';

/**
 * In-process exact sliding window: each bucket keeps the times of its accepted requests
 * (at most `limit` of them), oldest first.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, number[]>();
  private readonly sweeper: NodeJS.Timeout;
  private longestWindowMs = 0;

  constructor(
    private readonly now: () => number = Date.now,
    sweepEveryMs = 60_000,
  ) {
    // Forget buckets with nothing left in their window, so idle keys and addresses cost nothing.
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  async consume(bucket: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = this.now();
    if (windowMs > this.longestWindowMs) this.longestWindowMs = windowMs;
    let times = this.buckets.get(bucket);
    if (!times) {
      times = [];
      this.buckets.set(bucket, times);
    }
    let expired = 0;
    while (expired < times.length && times[expired]! <= now - windowMs) expired++;
    if (expired > 0) times.splice(0, expired);
    if (times.length >= limit) {
      return { allowed: false, limit, remaining: 0, retryAfterSeconds: retryAfterSeconds(times[times.length - limit]!, windowMs, now) };
    }
    times.push(now);
    return { allowed: true, limit, remaining: limit - times.length, retryAfterSeconds: 0 };
  }

  private sweep(): void {
    const cutoff = this.now() - this.longestWindowMs;
    for (const [bucket, times] of this.buckets) {
      if (times.length === 0 || times[times.length - 1]! <= cutoff) this.buckets.delete(bucket);
    }
  }

  async health(): Promise<'ok'> {
    return 'ok';
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.buckets.clear();
  }
}
