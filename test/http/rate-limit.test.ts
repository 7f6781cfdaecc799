import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerAuth } from '../../src/http/auth.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit/index.js';
import type { RateLimitStore } from '../../src/http/rate-limit/store.js';
import { generateKey } from '../../src/keys/key-format.js';
import '../../src/http/context.js';
import { useHarness } from '../helpers/app.js';

const URL = '/api/v1/external/products';

describe('sliding window (in-process store)', () => {
  it('allows exactly `limit` in any rolling window, and refusals use no quota', async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore(() => now);
    for (let i = 0; i < 5; i++) {
      const d = await store.consume('k', 5, 60_000);
      assert.equal(d.allowed, true);
      assert.equal(d.remaining, 4 - i);
      now += 1_000; // requests at t=0s,1s,2s,3s,4s
    }
    // t=5s: full. The oldest (t=0) leaves the window at t=60s → retry after 55 s.
    const refused = await store.consume('k', 5, 60_000);
    assert.deepEqual(refused, { allowed: false, limit: 5, remaining: 0, retryAfterSeconds: 55 });
    // Hammering while refused does not push the window out.
    for (let i = 0; i < 20; i++) assert.equal((await store.consume('k', 5, 60_000)).allowed, false);
    now = 1_000_000 + 59_999;
    assert.equal((await store.consume('k', 5, 60_000)).retryAfterSeconds, 1, 'never less than 1 second');
    now = 1_000_000 + 60_000; // t=60s: exactly one slot (t=0) has left the window
    assert.deepEqual(await store.consume('k', 5, 60_000), { allowed: true, limit: 5, remaining: 0, retryAfterSeconds: 0 });
    assert.equal((await store.consume('k', 5, 60_000)).allowed, false);
    now = 1_000_000 + 61_000; // t=61s: the t=1s request has left
    assert.equal((await store.consume('k', 5, 60_000)).allowed, true);
    await store.close();
  });

  it('is not a fixed window: a burst at the end of one minute still counts in the next', async () => {
    let now = 0;
    const store = new MemoryRateLimitStore(() => now);
    now = 59_000;
    for (let i = 0; i < 3; i++) assert.equal((await store.consume('k', 3, 60_000)).allowed, true);
    now = 61_000; // a fixed window would have reset at 60 s
    const d = await store.consume('k', 3, 60_000);
    assert.equal(d.allowed, false);
    assert.equal(d.retryAfterSeconds, 58);
    await store.close();
  });

  it('keeps buckets apart', async () => {
    const store = new MemoryRateLimitStore(() => 0);
    assert.equal((await store.consume('a', 1, 60_000)).allowed, true);
    assert.equal((await store.consume('a', 1, 60_000)).allowed, false);
    assert.equal((await store.consume('b', 1, 60_000)).allowed, true);
    await store.close();
  });
});

describe('rate limiting over HTTP', () => {
  const harness = useHarness({ RATE_LIMIT_PER_MINUTE: '3', AUTH_FAILURE_LIMIT_PER_MINUTE: '4' });

  it('reports the quota on every authenticated response and refuses the fourth call with 429', async () => {
    const h = harness();
    const t = await h.tenant('rl-a', ['products:read']);
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.request({ method: 'GET', url: URL, key: t.key });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-ratelimit-limit'], '3');
      remaining.push(res.headers['x-ratelimit-remaining']);
    }
    assert.deepEqual(remaining, ['2', '1', '0']);
    const refused = await h.request({ method: 'GET', url: URL, key: t.key });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().code, 'rate_limited');
    assert.equal(refused.headers['x-ratelimit-limit'], '3');
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    assert.equal(refused.headers['retry-after'], '60');
    h.clock.advance(30_000);
    assert.equal((await h.request({ method: 'GET', url: URL, key: t.key })).headers['retry-after'], '30');
    h.clock.advance(30_000);
    const again = await h.request({ method: 'GET', url: URL, key: t.key });
    assert.equal(again.statusCode, 200, '429s consumed nothing: slots free exactly 60 s after the accepted calls');
  });

  it('counts per key: another key of the same organisation has its own budget', async () => {
    const h = harness();
    const t = await h.tenant('rl-b', ['products:read']);
    const other = await t.keyFor(['products:read']);
    for (let i = 0; i < 3; i++) await h.request({ method: 'GET', url: URL, key: t.key });
    assert.equal((await h.request({ method: 'GET', url: URL, key: t.key })).statusCode, 429);
    assert.equal((await h.request({ method: 'GET', url: URL, key: other })).statusCode, 200);
  });

  it('a 403 counts against the key, so a wrong-scope loop cannot run unbounded', async () => {
    const h = harness();
    const t = await h.tenant('rl-c', ['compliance:read']);
    for (let i = 0; i < 3; i++) assert.equal((await h.request({ method: 'GET', url: URL, key: t.key })).statusCode, 403);
    assert.equal((await h.request({ method: 'GET', url: URL, key: t.key })).statusCode, 429);
  });

  it('limits failed authentications per client address', async () => {
    const h = harness();
    const _t = await h.tenant('rl-d', ['products:read']);
    const from = (ip: string, key?: string) =>
      h.app.inject({ method: 'GET', url: URL, remoteAddress: ip, headers: key ? { 'x-cra-api-key': key } : {} });
    for (let i = 0; i < 4; i++) assert.equal((await from('10.9.9.9', 'cra_wrong')).statusCode, 401);
    const blocked = await from('10.9.9.9', 'cra_wrong');
    assert.equal(blocked.statusCode, 429);
    assert.equal(blocked.json().code, 'rate_limited');
    assert.ok(Number(blocked.headers['retry-after']) >= 1);
    assert.equal(blocked.headers['x-ratelimit-limit'], undefined);
    assert.equal((await from('10.9.9.9', generateKey())).statusCode, 429, 'a well-formed but unknown key is looked up, then refused');
    assert.equal((await from('10.9.9.9')).statusCode, 429, 'no key at all: refused');
    assert.equal((await from('10.9.9.10', 'cra_wrong')).statusCode, 401, 'other addresses are unaffected');
    h.clock.advance(60_000);
    assert.equal((await from('10.9.9.9', 'cra_wrong')).statusCode, 401, 'refusals were not counted: the block ends with the window');
  });

  it('never refuses a valid key from an address whose failures are over the limit (one bad job behind a NAT)', async () => {
    const h = harness();
    const t = await h.tenant('rl-e', ['products:read']);
    const from = (key: string) => h.app.inject({ method: 'GET', url: URL, remoteAddress: '10.8.8.8', headers: { 'x-cra-api-key': key } });
    for (let i = 0; i < 4; i++) assert.equal((await from(generateKey())).statusCode, 401);
    assert.equal((await from(generateKey())).statusCode, 429);
    const valid = await from(t.key);
    assert.equal(valid.statusCode, 200, 'the valid key passes');
    assert.equal(valid.headers['x-ratelimit-remaining'], '2', 'and is counted against its own key only');
    assert.equal((await from('cra_wrong')).statusCode, 429, 'while the failing attempts stay refused');
  });
});

describe('addresses blocked for failed authentication', () => {
  /** The auth hook alone, with a store that counts how often it is asked about failures. */
  async function authApp(maxBlockedAddresses: number) {
    let now = 1_000_000;
    const memory = new MemoryRateLimitStore(() => now);
    const asked: string[] = [];
    const store: RateLimitStore = {
      consume: (bucket, limit, windowMs) => {
        asked.push(bucket);
        return memory.consume(bucket, limit, windowMs);
      },
      health: () => memory.health(),
      close: () => memory.close(),
    };
    const app = Fastify();
    const auth = registerAuth(app, {
      authenticate: async () => null,
      store,
      perKeyPerMinute: 10,
      failuresPerAddressPerMinute: 1,
      now: () => now,
      maxBlockedAddresses,
    });
    app.get('/op', { config: { scope: 'products:read' } }, async () => ({}));
    await app.ready();
    const fail = async (ip: string) =>
      (await app.inject({ method: 'GET', url: '/op', remoteAddress: ip, headers: { 'x-cra-api-key': 'cra_bad' } })).statusCode;
    return { app, auth, asked, fail, advance: (ms: number) => (now += ms) };
  }

  it('are remembered up to a bound: many distinct addresses cannot grow memory without limit', async () => {
    const { app, auth, asked, fail } = await authApp(100);
    for (let i = 0; i < 1000; i++) {
      const ip = `10.1.${i >> 8}.${i & 255}`;
      assert.equal(await fail(ip), 401);
      assert.equal(await fail(ip), 429);
    }
    assert.equal(auth.blockedAddresses(), 100);
    // The newest are still refused from memory; the oldest, forgotten, are asked about again
    // (and still refused: the store keeps counting their failures).
    asked.length = 0;
    assert.equal(await fail('10.1.3.231'), 429);
    assert.equal(asked.length, 0, 'the newest block is answered from memory');
    assert.equal(await fail('10.1.0.0'), 429);
    assert.deepEqual(asked, ['authfail:10.1.0.0'], 'the oldest was forgotten, the store still refuses it');
    await app.close();
  });

  it('drop expired entries first when the bound is reached', async () => {
    const { app, auth, fail, advance } = await authApp(10);
    for (let i = 0; i < 10; i++) {
      await fail(`10.2.0.${i}`);
      await fail(`10.2.0.${i}`);
    }
    assert.equal(auth.blockedAddresses(), 10);
    advance(61_000);
    await fail('10.2.1.1');
    await fail('10.2.1.1');
    assert.equal(auth.blockedAddresses(), 1, 'the ten expired blocks were swept');
    await app.close();
  });
});
