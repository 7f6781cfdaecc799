import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DEFAULT_POSTGRES_TIMEOUTS, openDatabase } from '../../src/db/index.js';
import { createTestDatabase, TEST_BACKEND } from '../helpers/db.js';
import { suiteTeardown } from '../helpers/app.js';
import { holdLoopUntil } from '../helpers/hold-loop.js';

// The stall watchdog (src/db/postgres-stall.ts) must tell a slow statement from a frozen server:
// a statement that outlives the stall threshold makes it probe PostgreSQL, and a server that
// answers the probe is left alone, and so is one that a busy host keeps this process from hearing.
// (A frozen one is test/scale/postgres-faults.test.ts, and test/db/stall-watchdog.test.ts.)
describe('the PostgreSQL stall watchdog', { skip: TEST_BACKEND !== 'postgres' }, () => {
  const teardown = suiteTeardown();

  it('lets a slow statement finish when the server answers its probe', async () => {
    const test = await createTestDatabase();
    teardown.after(() => test.drop());
    const database = openDatabase(test.url, { ...DEFAULT_POSTGRES_TIMEOUTS, stallAfterMs: 100, probeTimeoutMs: 1_000 });
    teardown.after(() => database.close());
    const changes: unknown[] = [];
    database.availability.onChange((change) => changes.push(change));
    // Several stall thresholds long: the watchdog probes (more than once) meanwhile.
    const result = await database.transaction((trx) => sql<{ v: number }>`select 42 as v from pg_sleep(1.2)`.execute(trx));
    assert.equal(result.rows[0]?.v, 42);
    assert.deepEqual(changes, [], 'the database never counted as unavailable');
    assert.equal(database.availability.available, true);
  });

  // A busy host (the CPU given to other work, a long task on the event loop) delays this
  // process, not the server: the statement's wait and the probe count only the time the process
  // ran. Here the loop is held up for 1 s at a time, with one turn between two holds: counted in
  // time that passed, the statement would stall and the probe, started in one turn and timed
  // out by the next, would call the server frozen and close the statement's connection.
  it("does not count time in which the process did not run as the server's silence", async () => {
    const test = await createTestDatabase();
    teardown.after(() => test.drop());
    const database = openDatabase(test.url, { ...DEFAULT_POSTGRES_TIMEOUTS, stallAfterMs: 200, probeTimeoutMs: 1_000 });
    teardown.after(() => database.close());
    const changes: unknown[] = [];
    database.availability.onChange((change) => changes.push(change));
    const statement = database.transaction((trx) => sql<{ v: number }>`select 42 as v from pg_sleep(3)`.execute(trx));
    const result = await holdLoopUntil(statement, 1_000);
    assert.equal(result.rows[0]?.v, 42);
    assert.deepEqual(changes, [], 'the database never counted as unavailable');
  });
});
