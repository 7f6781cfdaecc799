import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { NestedTransactionError } from '../../src/db/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

// `database.transaction` inside another one used to wait forever on SQLite (the group-commit
// queue waits for the batch that waits for it). It is refused at once, on both databases.
describe('a transaction inside another', () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase();
  });
  after(async () => t?.drop());

  it('is refused with a clear programming error instead of hanging', { timeout: 5_000 }, async () => {
    const { database } = t;
    await assert.rejects(
      database.transaction(async () => database.transaction(async (inner) => sql`select 1`.execute(inner))),
      (error: unknown) => error instanceof NestedTransactionError && /inside another database\.transaction/.test(error.message),
    );
    // Also when the inner call is made after the outer work has already awaited something.
    await assert.rejects(
      database.transaction(async (trx) => {
        await sql`select 1`.execute(trx);
        await new Promise((r) => setTimeout(r, 5));
        return database.transaction(async () => 1);
      }),
      NestedTransactionError,
    );
  });

  it('leaves concurrent, non-nested transactions and the database working', { timeout: 5_000 }, async () => {
    const { database } = t;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        database.transaction(async (trx) => (await sql<{ n: number }>`select ${i} as n`.execute(trx)).rows[0]!.n),
      ),
    );
    assert.deepEqual(
      results.map(Number),
      Array.from({ length: 50 }, (_, i) => i),
    );
    // Work that starts another transaction only after its own has resolved is not nested.
    const chained = await database.transaction(async () => 1).then(() => database.transaction(async () => 2));
    assert.equal(chained, 2);
  });
});
