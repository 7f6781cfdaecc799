import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DEFAULT_POSTGRES_TIMEOUTS, openDatabase } from '../../src/db/index.js';
import { createTestDatabase, TEST_BACKEND } from '../helpers/db.js';
import { suiteTeardown } from '../helpers/app.js';

// The stall watchdog (src/db/postgres-stall.ts) must tell a slow statement from a frozen server:
// a statement that outlives the stall threshold makes it probe PostgreSQL, and a server that
// answers the probe is left alone. (A frozen one is test/scale/postgres-faults.test.ts.)
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
});
