/** The outcome of one attempt to take a slot from a sliding window. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Slots left in the window after this request (0 when refused). */
  remaining: number;
  /** When refused: whole seconds until the oldest counted request leaves the window (≥ 1). */
  retryAfterSeconds: number;
}

/**
 * An exact sliding window: at most `limit` accepted requests in any rolling `windowMs`.
 * A refused request is not recorded, so a client that backs off regains slots on time.
 * Implemented in process (MemoryRateLimitStore) and across instances (RedisRateLimitStore).
 */
export interface RateLimitStore {
  consume(bucket: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
  /** 'ok', or 'degraded' when a shared store is unreachable and limits are per instance. */
  health(): Promise<'ok' | 'degraded'>;
  close(): Promise<void>;
}

export function retryAfterSeconds(oldestMs: number, windowMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((oldestMs + windowMs - nowMs) / 1000));
}
