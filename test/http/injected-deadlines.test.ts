import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, suiteTeardown } from '../helpers/app.js';
import { postIncident } from '../helpers/incidents.js';

// The request deadline (REQUEST_TIMEOUT_MS) bounds how long a request takes to arrive over its
// connection. An injected request (app.inject, how most tests call the API) arrives whole at
// once, on no connection: one that took longer than the deadline to answer (many concurrent
// reports on a busy host took 30 s) threw from the deadline's timer ("socket.end is not a
// function") and failed its test. A deadline of 1 ms makes every such request outlast it.
describe('the request deadline, on injected requests', () => {
  let h: Harness;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown, { REQUEST_TIMEOUT_MS: '1', HEADERS_TIMEOUT_MS: '1', RATE_LIMIT_PER_MINUTE: '100000' });
  });

  it('never applies: requests that outlast it are answered', async () => {
    const t = await h.tenant('slow-inject', ['incidents:write']);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => postIncident(h, t.key, { description: `report ${i}` })));
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      Array.from({ length: 20 }, () => 201),
    );
    // Past any timer the requests set.
    await new Promise((r) => setTimeout(r, 50));
  });
});
