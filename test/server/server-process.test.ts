import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { startServer, type RunningServer } from '../helpers/server.js';

// The service as users run it: `node dist/server.js` as a process, keys from `cra-admin`,
// requests over real HTTP.
describe('the server process', () => {
  let server: RunningServer;
  let env: Record<string, string>;
  let secret: string;
  let drop: () => Promise<void>;

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    // cra-admin works on a database no server has touched yet: it migrates by itself.
    assert.equal((await runCli(['org', 'create', 'proc', '--json'], env)).code, 0);
    const key = await runCli(['key', 'create', '--org', 'proc', '--name', 'ci', '--scopes', 'products:read', '--json'], env);
    secret = key.json().secret;
    assert.equal((await runCli(['product', 'add', '--org', 'proc', '--sku', 'P-1', '--name', 'Pump'], env)).code, 0);
    server = await startServer({ ...env, LOG_LEVEL: 'trace', API_HOSTS: 'localhost' });
  });
  after(async () => {
    await server?.stop();
    await drop?.();
  });

  it('serves the catalogue over HTTP with both key headers, full and short form', async () => {
    const full = await fetch(`${server.url}/api/v1/external/products`, { headers: { 'X-CRA-API-Key': secret } });
    assert.equal(full.status, 200);
    assert.equal(full.headers.get('x-ratelimit-limit'), '100');
    const body = (await full.json()) as { count: number; products: Array<{ sku: string }> };
    assert.equal(body.count, 1);
    assert.equal(body.products[0]!.sku, 'P-1');
    const short = await fetch(`http://localhost:${server.port}/v1/products`, { headers: { Authorization: `Bearer ${secret}` } });
    assert.equal(short.status, 200);
  });

  it('puts the serving host in the OpenAPI servers list', async () => {
    const doc = (await (await fetch(`${server.url}/swagger/openapi.json`)).json()) as { servers: Array<{ url: string }> };
    assert.equal(doc.servers[0]!.url, `${server.url}/api/v1/external`);
  });

  it('never writes a key to its logs, even at trace level', async () => {
    await fetch(`${server.url}/api/v1/external/products`, { headers: { Authorization: `Bearer ${secret}` } });
    await fetch(`${server.url}/api/v1/external/products`, { headers: { 'X-CRA-API-Key': `${secret.slice(0, -1)}x` } });
    const logs = server.logs();
    assert.match(logs, /incoming request/);
    assert.equal(logs.includes(secret.slice(4, 34)), false);
  });

  it('sees what cra-admin commits from its own process on the very next request', async () => {
    const products = () => fetch(`${server.url}/api/v1/external/products`, { headers: { 'X-CRA-API-Key': other } });
    const created = await runCli(['key', 'create', '--org', 'proc', '--name', 'short-lived', '--scopes', 'products:read', '--json'], env);
    const other = created.json().secret as string;
    // Served twice, so the key and the catalogue are remembered by the server.
    for (let i = 0; i < 2; i++) assert.equal(((await (await products()).json()) as { count: number }).count, 1);
    assert.equal((await runCli(['product', 'add', '--org', 'proc', '--sku', 'P-2', '--name', 'Valve'], env)).code, 0);
    assert.equal(((await (await products()).json()) as { count: number }).count, 2, 'the new product at once');
    assert.equal((await runCli(['key', 'revoke', '--org', 'proc', '--name', 'short-lived'], env)).code, 0);
    assert.equal((await products()).status, 401, 'the revocation at once');
    const rotated = await runCli(['key', 'rotate', '--org', 'proc', '--name', 'ci', '--json'], env);
    assert.equal(
      (await fetch(`${server.url}/api/v1/external/products`, { headers: { 'X-CRA-API-Key': secret } })).status,
      401,
      'the rotated-out secret at once',
    );
    secret = rotated.json().secret;
    assert.equal((await fetch(`${server.url}/api/v1/external/products`, { headers: { 'X-CRA-API-Key': secret } })).status, 200);
  });

  it('stops on SIGTERM after finishing what is in flight, exit code 0', async () => {
    const received = () => server.logs().split('incoming request').length - 1;
    const before = received();
    const inFlight = Array.from({ length: 20 }, () =>
      fetch(`${server.url}/api/v1/external/products`, { headers: { 'X-CRA-API-Key': secret } }),
    );
    while (received() < before + 20) await new Promise((r) => setTimeout(r, 5));
    const stopping = Date.now();
    const code = await server.stop('SIGTERM');
    const statuses = (await Promise.all(inFlight)).map((r) => r.status);
    assert.equal(code, 0);
    // Not a speed goal: the keep-alive connections of those requests must not hold the
    // process for their 72 s keep-alive timeout after their responses are out.
    assert.ok(Date.now() - stopping < 30_000, `exited ${Date.now() - stopping} ms after SIGTERM`);
    assert.deepEqual(new Set(statuses), new Set([200]), 'every request received before SIGTERM was answered');
    assert.match(server.logs(), /shutting down/);
  });
});

describe('a first start on a fresh database', () => {
  it('migrates, serves, and logs no warning (the clock and delivery workers wait for the schema)', async () => {
    const db = await createEmptyDatabaseUrl();
    // CONSOLE_SECRET: without it PostgreSQL warns that the console cannot enrol anyone, rightly.
    const server = await startServer({ DATABASE_URL: db.url, CONSOLE_SECRET: 'x'.repeat(32) });
    try {
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      // The scheduler ticks as it starts, the dispatcher polls every second: give both a turn.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const warnings = server
        .logs()
        .split('\n')
        .filter((line) => /"level":(40|50|60)/.test(line));
      assert.deepEqual(warnings, []);
    } finally {
      await server.stop();
      await db.drop();
    }
  });
});

describe('start-up errors', () => {
  it('refuses a bad configuration with a clear message and exit 1', async () => {
    await assert.rejects(startServer({ DATABASE_URL: 'mysql://nope', PORT: '0' }), /DATABASE_URL must start with sqlite: or postgres:\/\//);
    await assert.rejects(
      startServer({ DATABASE_URL: 'sqlite::memory:', RATE_LIMIT_PER_MINUTE: 'lots' }),
      /RATE_LIMIT_PER_MINUTE must be a positive integer/,
    );
    await assert.rejects(
      startServer({ DATABASE_URL: 'sqlite::memory:', SBOM_WARM_UP: 'yes' }),
      /SBOM_WARM_UP must be true or false, got "yes"/,
    );
    await assert.rejects(
      startServer({ DATABASE_URL: 'sqlite::memory:', WEBHOOK_ALLOW_PRIVATE: 'yes' }),
      /WEBHOOK_ALLOW_PRIVATE must be true or false, got "yes"/,
    );
  });
});
