// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl, TEST_BACKEND } from '../helpers/db.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/services.js';

// Several stateless instances on one PostgreSQL and one Redis behave as one service
// (decisions §6): numbering, the registry chain, the rate-limit budget and revocation.
describe('two instances on one PostgreSQL and one Redis', { skip: TEST_BACKEND !== 'postgres' }, () => {
  let servers: RunningServer[] = [];
  let redis: PrivateRedis;
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  const LIMIT = 150;
  const cli = (...args: string[]) => runCli(args, env);
  const newKey = async (name: string, scopes: string) =>
    (await cli('key', 'create', '--org', 'multi', '--name', name, '--scopes', scopes, '--json')).json().secret as string;

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    redis = await startPrivateRedis();
    env = { DATABASE_URL: db.url, REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: String(LIMIT), AUTH_FAILURE_LIMIT_PER_MINUTE: '1000' };
    assert.equal((await cli('org', 'create', 'multi', '--intake-mode', 'case')).code, 0);
    assert.equal((await cli('product', 'add', '--org', 'multi', '--sku', 'GW-1', '--name', 'Gateway')).code, 0);
    // Both start at once: migrations are applied once under the migrator's lock.
    servers = await Promise.all([startServer({ ...env, LOG_LEVEL: 'warn' }), startServer({ ...env, LOG_LEVEL: 'warn' })]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await redis?.stop();
    await drop?.();
  });

  it('numbers concurrent signals 1…N without gap or duplicate, and the registry chain does not fork', async () => {
    const keys = await Promise.all([0, 1, 2, 3].map((i) => newKey(`intake-${i}`, 'incidents:write')));
    const requests = Array.from({ length: 400 }, (_, i) =>
      fetch(`${servers[i % 2]!.url}/api/v1/external/incidents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-cra-api-key': keys[i % 4]! },
        body: JSON.stringify({ description: `signal ${i}`, sku: i % 3 === 0 ? 'GW-1' : undefined }),
      }),
    );
    const responses = await Promise.all(requests);
    // A 503 names its cause in the server's log ("database unavailable: …").
    const errors = () =>
      servers.flatMap((s) =>
        s
          .logs()
          .split('\n')
          .filter((l) => l.includes('"level":50')),
      );
    assert.deepEqual(new Set(responses.map((r) => r.status)), new Set([201]), errors().join('\n'));
    const numbers = (await Promise.all(responses.map((r) => r.json() as Promise<{ incident_number: number }>))).map(
      (b) => b.incident_number,
    );
    assert.deepEqual(
      numbers.sort((a, b) => a - b),
      Array.from({ length: 400 }, (_, i) => i + 1),
    );
    const verify = await cli('registry', 'verify', '--org', 'multi', '--json');
    assert.equal(verify.code, 0, verify.stdout);
    assert.equal(verify.json().ok, true);
  });

  it('shares one rate-limit budget per key across instances', async () => {
    const key = await newKey('reader', 'products:read');
    const responses = await Promise.all(
      Array.from({ length: LIMIT + 60 }, (_, i) =>
        fetch(`${servers[i % 2]!.url}/api/v1/external/products`, { headers: { 'x-cra-api-key': key } }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, LIMIT);
    assert.equal(statuses.filter((s) => s === 429).length, 60);
    const refused = responses.find((r) => r.status === 429)!;
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  });

  it('a revoked key stops working on every instance at once', async () => {
    const key = await newKey('to-revoke', 'products:read');
    for (const s of servers)
      assert.equal((await fetch(`${s.url}/api/v1/external/products`, { headers: { 'x-cra-api-key': key } })).status, 200);
    assert.equal((await cli('key', 'revoke', '--org', 'multi', '--name', 'to-revoke')).code, 0);
    for (const s of servers)
      assert.equal((await fetch(`${s.url}/api/v1/external/products`, { headers: { 'x-cra-api-key': key } })).status, 401);
  });

  it('keeps serving with per-instance limits while Redis is down, and says so on /readyz', async () => {
    const key = await newKey('during-outage', 'products:read');
    await redis.stop();
    try {
      const res = await fetch(`${servers[0]!.url}/api/v1/external/products`, { headers: { 'x-cra-api-key': key } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), String(LIMIT));
      const ready = await fetch(`${servers[0]!.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ready', database: 'ok', rate_limit: 'degraded' });
      await servers[0]!.waitForLog(/Redis unreachable: rate limits are per instance/);
    } finally {
      await redis.start();
    }
  });
});
