import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useHarness } from '../helpers/app.js';
import { allowDirectWrites } from '../helpers/db.js';

// It takes a table away directly, outside Database.transaction.
allowDirectWrites();

describe('error bodies', () => {
  const harness = useHarness();

  it('404 for an unknown path has the JSON error body and a request id', async () => {
    const res = await harness().app.inject({ method: 'GET', url: '/api/v1/external/nothing-here' });
    assert.equal(res.statusCode, 404);
    const body = res.json();
    assert.equal(body.code, 'not_found');
    assert.equal(typeof body.errore, 'string');
    assert.equal(body.request_id, res.headers['x-request-id']);
  });

  it('an internal failure is a 500 with the JSON body and no stack trace or SQL', async () => {
    const h = harness();
    const t = await h.tenant('err-a', ['products:read']);
    // Break the products table under the running app.
    await h.database.db.schema.alterTable('products').renameTo('products_gone').execute();
    try {
      const res = await h.request({ method: 'GET', url: '/api/v1/external/products', key: t.key });
      assert.equal(res.statusCode, 500);
      assert.deepEqual(Object.keys(res.json()).sort(), ['code', 'errore', 'request_id']);
      assert.equal(res.json().code, 'internal_error');
      assert.equal(res.json().errore, 'internal error');
      assert.doesNotMatch(res.body, /at \w+ \(|\.ts:\d+|products|select/i);
    } finally {
      await h.database.db.schema.alterTable('products_gone').renameTo('products').execute();
    }
  });

  it('/healthz and /readyz need no key and reveal nothing else', async () => {
    const h = harness();
    const health = await h.app.inject({ method: 'GET', url: '/healthz' });
    assert.deepEqual(health.json(), { status: 'ok' });
    const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready', database: 'ok', rate_limit: 'ok' });
  });
});
