// On SQLite every write of the server's connection goes through Database.transaction: it waits
// its turn there while the row writer's thread holds SQLite's write lock (sqlite-row-writer.ts).
// A write outside it (autocommit) would wait for that lock on the event loop instead, and every
// request with it. Migrations run before anything else and may write so.
//
// With CRA_STRICT_WRITES=1 (the test runner sets it) such a write throws, naming its statement:
// the suite finds any path that writes outside a transaction. Elsewhere it runs as it is.

/** Kysely handles whose migrations are running. */
export const migrating = new WeakSet<object>();

const CONTROL = /^\s*(begin|commit|rollback|savepoint|release|pragma)\b/i;

export function checkAutocommitWrite(handle: object, sql: string): void {
  if (process.env.CRA_STRICT_WRITES !== '1' || migrating.has(handle) || CONTROL.test(sql)) return;
  throw new Error(`a write outside Database.transaction on SQLite: ${sql.slice(0, 120)}`);
}
