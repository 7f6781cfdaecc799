import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely } from 'kysely';
import type { Availability } from './availability.js';
import type { DB } from './schema.js';
import type { Trx } from './database.js';

// `database.transaction` inside another one is a programming error on both databases: on
// SQLite the inner call waits for the group-commit batch that is waiting for it (forever); on
// PostgreSQL it needs a second pooled connection while holding the first, and ten such calls
// at once take every connection and wait for each other. So every transaction's work runs
// marked, and a call from inside marked work is refused at once.

const scope = new AsyncLocalStorage<true>();

export class NestedTransactionError extends Error {
  constructor() {
    super(
      'database.transaction was called inside another database.transaction; pass the outer trx down instead (a nested call would wait forever)',
    );
    this.name = 'NestedTransactionError';
  }
}

/** Throws when called from inside a transaction's work. */
export function refuseNested(): void {
  if (scope.getStore()) throw new NestedTransactionError();
}

/** Runs a transaction's work marked as such. */
export function insideTransaction<T>(work: () => Promise<T>): Promise<T> {
  return scope.run(true, work);
}

/**
 * /readyz's round trip. While the last operation failed on the database's side, a real write
 * (the one probe row, migration 006): a full disk or a read-only file still answers `select 1`.
 */
export async function pingOrProbe(
  db: Kysely<DB>,
  availability: Availability,
  transaction: (work: (trx: Trx) => Promise<void>) => Promise<void>,
): Promise<void> {
  if (availability.available) {
    await availability.track(sql`select 1`.execute(db));
    return;
  }
  await transaction(async (trx) => {
    await trx
      .insertInto('write_probe')
      .values({ id: 1, writes: 1 })
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ writes: eb('write_probe.writes', '+', 1) })))
      .execute();
  });
}
