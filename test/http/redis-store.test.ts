import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { RedisRateLimitStore } from '../../src/http/rate-limit/index.js';
import { TEST_BACKEND, TEST_REDIS_URL } from '../helpers/db.js';
import { holdLoop } from '../helpers/hold-loop.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/services.js';

// Runs in the scale-out pass (PostgreSQL + Redis), where Redis is guaranteed.
const skip = TEST_BACKEND !== 'postgres';

describe('Redis sliding window', { skip }, () => {
  it("has the in-process store's exact semantics", async () => {
    let now = 5_000_000;
    const store = new RedisRateLimitStore(TEST_REDIS_URL, { keyPrefix: `t:${randomUUID()}:`, now: () => now });
    await store.waitUntilReady();
    try {
      for (let i = 0; i < 5; i++) {
        assert.deepEqual(await store.consume('k', 5, 60_000), { allowed: true, limit: 5, remaining: 4 - i, retryAfterSeconds: 0 });
        now += 1_000;
      }
      assert.deepEqual(await store.consume('k', 5, 60_000), { allowed: false, limit: 5, remaining: 0, retryAfterSeconds: 55 });
      for (let i = 0; i < 10; i++) assert.equal((await store.consume('k', 5, 60_000)).allowed, false);
      now = 5_000_000 + 60_000;
      assert.equal((await store.consume('k', 5, 60_000)).allowed, true);
      assert.equal((await store.consume('k', 5, 60_000)).allowed, false);
    } finally {
      await store.close();
    }
  });

  it('admits exactly `limit` of many concurrent requests from several instances (Redis time)', async () => {
    const prefix = `t:${randomUUID()}:`;
    const instances = [0, 1, 2].map(() => new RedisRateLimitStore(TEST_REDIS_URL, { keyPrefix: prefix }));
    await Promise.all(instances.map((s) => s.waitUntilReady()));
    try {
      const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => instances[i % 3]!.consume('shared', 100, 60_000)));
      assert.equal(decisions.filter((d) => d.allowed).length, 100);
      const remaining = decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((a, b) => a - b);
      assert.deepEqual(
        remaining,
        Array.from({ length: 100 }, (_, i) => i),
        'each slot handed out once',
      );
      assert.ok(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds >= 59 && d.retryAfterSeconds <= 60));
    } finally {
      await Promise.all(instances.map((s) => s.close()));
    }
  });

  // Time in which the event loop was held up (a busy host, a long task) is not Redis's: an
  // answer that came meanwhile is read before the command's deadline is judged.
  it('does not take a held-up event loop for Redis gone', async () => {
    const events: string[] = [];
    const store = new RedisRateLimitStore(TEST_REDIS_URL, {
      keyPrefix: `t:${randomUUID()}:`,
      commandTimeoutMs: 200,
      onStateChange: (s) => events.push(s),
    });
    await store.waitUntilReady();
    try {
      const decision = store.consume('k', 5, 60_000);
      holdLoop(600);
      assert.deepEqual(await decision, { allowed: true, limit: 5, remaining: 4, retryAfterSeconds: 0 });
      assert.deepEqual(events, [], 'never degraded');
    } finally {
      await store.close();
    }
  });
});

describe('when Redis fails', { skip }, () => {
  let redis: PrivateRedis;
  before(async () => {
    redis = await startPrivateRedis();
  });
  after(async () => redis?.stop());

  it('a frozen Redis (SIGSTOP): per-instance limits after the command timeout, shared again after SIGCONT', async () => {
    const events: string[] = [];
    const store = new RedisRateLimitStore(redis.url, { onStateChange: (s) => events.push(s), commandTimeoutMs: 300 });
    await store.waitUntilReady();
    try {
      assert.equal((await store.consume('frozen', 2, 60_000)).allowed, true);
      redis.signal('SIGSTOP');
      try {
        const started = performance.now();
        const during = await store.consume('frozen', 2, 60_000);
        assert.ok(performance.now() - started >= 300, 'waited for the command timeout');
        assert.equal(during.allowed, true, 'still served');
        assert.deepEqual(events, ['degraded']);
      } finally {
        redis.signal('SIGCONT');
      }
      let back = false;
      for (let i = 0; i < 50 && !back; i++) {
        back = (await store.health()) === 'ok';
        if (!back) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(back, 'back by itself');
      assert.deepEqual(events, ['degraded', 'ok']);
    } finally {
      await store.close();
    }
  });

  it('falls back to per-instance limits, reports degraded, and recovers', async () => {
    const events: string[] = [];
    const store = new RedisRateLimitStore(redis.url, { onStateChange: (s) => events.push(s), commandTimeoutMs: 300 });
    await store.waitUntilReady();
    try {
      assert.equal((await store.consume('k', 2, 60_000)).allowed, true);
      assert.equal(await store.health(), 'ok');
      await redis.stop();
      const during = await store.consume('k', 2, 60_000);
      assert.equal(during.allowed, true, 'still served');
      assert.equal(during.limit, 2);
      assert.equal(await store.health(), 'degraded');
      assert.deepEqual(events, ['degraded']);
      await redis.start();
      await store.waitUntilReady(5_000).catch(() => {});
      let back = false;
      for (let i = 0; i < 50 && !back; i++) {
        back = (await store.health()) === 'ok';
        if (!back) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(back, 'reconnects by itself');
      assert.deepEqual(events, ['degraded', 'ok']);
      assert.equal((await store.consume('k2', 1, 60_000)).allowed, true);
      assert.equal((await store.consume('k2', 1, 60_000)).allowed, false, 'shared window again');
    } finally {
      await store.close();
    }
  });
});
