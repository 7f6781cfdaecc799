// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { TEST_BACKEND } from '../helpers/db.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/services.js';

describe('when PostgreSQL goes away', { skip: TEST_BACKEND !== 'postgres' }, () => {
  let pg: PrivatePostgres;
  let server: RunningServer;
  let key: string;

  before(async () => {
    pg = await startPrivatePostgres();
    const env = { DATABASE_URL: pg.url };
    await runCli(['org', 'create', 'outage'], env);
    key = (await runCli(['key', 'create', '--org', 'outage', '--name', 'k', '--scopes', 'products:read', '--json'], env)).json().secret;
    server = await startServer({ ...env, LOG_LEVEL: 'warn' });
  });
  after(async () => {
    await server?.stop();
    await pg?.destroy();
  });

  it('answers 503 with the JSON error body, /readyz says unavailable, and recovers by itself', async () => {
    const get = () => fetch(`${server.url}/api/v1/external/products`, { headers: { 'x-cra-api-key': key } });
    assert.equal((await get()).status, 200);
    await pg.stop();
    const down = await get();
    assert.equal(down.status, 503);
    const body = (await down.json()) as Record<string, unknown>;
    assert.equal(body.code, 'service_unavailable');
    assert.equal(typeof body.request_id, 'string');
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { status: 'unavailable', database: 'unavailable', rate_limit: 'ok' });
    assert.equal(server.process.exitCode, null, 'the process survives');
    await pg.start();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await get()).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 200);
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
  });
});
