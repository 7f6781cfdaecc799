import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { createServices } from '../../src/services.js';
import { openDatabase } from '../../src/db/index.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit/index.js';
import { verifyRegistry } from '../../src/registry/registry.service.js';
import { buildHarness, type Harness, suiteTeardown } from '../helpers/app.js';
import { TEST_BACKEND } from '../helpers/db.js';
import { INCIDENTS_URL, postIncident } from '../helpers/incidents.js';

// incident_number is 1, 2, 3 … per organisation with no gap or duplicate, however many
// requests race (decisions §2). The quota is raised so hundreds of requests can share a key.

const N = 300;
const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const sorted = (numbers: number[]) => [...numbers].sort((a, b) => a - b);

describe('incident numbering under concurrency', () => {
  let h: Harness;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown, { RATE_LIMIT_PER_MINUTE: '100000' });
  });

  const storedNumbers = async (orgId: string, table: 'signals' | 'cases') =>
    (await h.database.db.selectFrom(table).select('incident_number').where('org_id', '=', orgId).orderBy('incident_number').execute()).map(
      (r) => r.incident_number,
    );

  it(`${N} concurrent injected requests get exactly 1..${N}`, async () => {
    const t = await h.tenant('race-inject', ['incidents:write']);
    const responses = await Promise.all(oneToN(N).map((i) => postIncident(h, t.key, { description: `report ${i}` })));
    assert.ok(
      responses.every((r) => r.statusCode === 201),
      responses.find((r) => r.statusCode !== 201)?.body,
    );
    assert.deepEqual(sorted(responses.map((r) => r.json().incident_number)), oneToN(N));
    assert.deepEqual(await storedNumbers(t.orgId, 'signals'), oneToN(N));
    const registry = await verifyRegistry(h.database, t.orgId);
    assert.equal(registry.ok, true);
    assert.equal(registry.entries, N + 2, 'org.created, key.created and one signal.received per request');
  });

  it('two organisations racing each count from 1, and case mode numbers cases the same way', async () => {
    const a = await h.tenant('race-a', ['incidents:write']);
    const b = await h.tenant('race-b', ['incidents:write'], { intakeMode: 'case' });
    const requests = oneToN(200).map((i) => postIncident(h, i % 2 ? a.key : b.key, { description: `report ${i}` }));
    const responses = await Promise.all(requests);
    const numbersOf = (key: string) =>
      responses.filter((_, i) => (i % 2 === 0 ? a.key : b.key) === key).map((r) => r.json().incident_number);
    assert.deepEqual(sorted(numbersOf(a.key)), oneToN(100));
    assert.deepEqual(sorted(numbersOf(b.key)), oneToN(100));
    assert.deepEqual(await storedNumbers(b.orgId, 'cases'), oneToN(100));
    assert.deepEqual(await storedNumbers(b.orgId, 'signals'), oneToN(100));
  });

  it(`${N} concurrent requests through a real listening server get exactly 1..${N}`, async () => {
    const t = await h.tenant('race-http', ['incidents:write']);
    const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const responses = await Promise.all(
      oneToN(N).map(async (i) => {
        const res = await fetch(`${address}${INCIDENTS_URL}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-cra-api-key': t.key },
          body: JSON.stringify({ description: `report ${i}` }),
        });
        return { status: res.status, body: (await res.json()) as { incident_number: number } };
      }),
    );
    assert.ok(
      responses.every((r) => r.status === 201),
      JSON.stringify(responses.find((r) => r.status !== 201)),
    );
    assert.deepEqual(sorted(responses.map((r) => r.body.incident_number)), oneToN(N));
    assert.deepEqual(await storedNumbers(t.orgId, 'signals'), oneToN(N));
  });

  // Several instances share one database only on PostgreSQL (decisions §6); on SQLite one
  // process owns the file. Each instance here has its own connection pool, as separate
  // processes would; the organisation's row lock is all that orders them.
  it('two server instances on one PostgreSQL database hand out 1..N together', {
    skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL only',
  }, async () => {
    const t = await h.tenant('race-instances', ['incidents:write']);
    const database = openDatabase(h.config.databaseUrl);
    const store = new MemoryRateLimitStore(() => h.clock.now().getTime());
    const second = await buildApp({
      config: h.config,
      services: createServices({ database, clock: h.clock.now }),
      rateLimitStore: store,
      logger: false,
    });
    teardown.after(async () => {
      await second.close();
      await store.close();
      await database.close();
    });
    const send = (app: typeof second, i: number) =>
      app.inject({
        method: 'POST',
        url: INCIDENTS_URL,
        headers: { 'content-type': 'application/json', 'x-cra-api-key': t.key },
        payload: JSON.stringify({ description: `report ${i}` }),
      });
    const responses = await Promise.all(oneToN(N).map((i) => send(i % 2 ? h.app : second, i)));
    assert.ok(
      responses.every((r) => r.statusCode === 201),
      responses.find((r) => r.statusCode !== 201)?.body,
    );
    assert.deepEqual(sorted(responses.map((r) => r.json().incident_number)), oneToN(N));
    assert.deepEqual(await storedNumbers(t.orgId, 'signals'), oneToN(N));
    assert.equal((await verifyRegistry(h.database, t.orgId)).ok, true);
  });

  // Numbering takes the organisation's row lock until commit. A burst of one organisation's
  // reports queues for it in the process, one at a time, so the pool's other connections stay
  // free for everyone else, and a report's wait for the lock is short enough for the statement
  // timeout however long the burst (a busy host made 400 concurrent reports outlast it).
  it("a burst of one organisation's reports leaves the pool to everyone else", {
    skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL only: SQLite runs one transaction at a time',
  }, async () => {
    const t = await h.tenant('race-pool', ['incidents:write']);
    // The lock, held by another client until the end of the test's check.
    const holder = new pg.Client({ connectionString: h.config.databaseUrl });
    await holder.connect();
    teardown.after(() => holder.end());
    await holder.query('begin');
    await holder.query('select 1 from organisations where id = $1 for update', [t.orgId]);
    const burst = Promise.all(oneToN(20).map((i) => postIncident(h, t.key, { description: `report ${i}` })));
    await new Promise((r) => setTimeout(r, 300));
    // Twenty reports waiting for the lock, more than the pool's ten connections: a read still
    // gets one at once.
    const read = h.database.db.selectFrom('organisations').select('id').where('id', '=', t.orgId).execute();
    const outcome = await Promise.race([read.then(() => 'read'), new Promise((r) => setTimeout(() => r('still waiting'), 5_000))]);
    await holder.query('commit');
    assert.equal(outcome, 'read');
    const responses = await burst;
    assert.ok(
      responses.every((r) => r.statusCode === 201),
      responses.find((r) => r.statusCode !== 201)?.body,
    );
    assert.deepEqual(sorted(responses.map((r) => r.json().incident_number)), oneToN(20));
  });
});
