import { sql } from 'kysely';
import type { Trx } from './database.js';
import type { DialectName } from './migrations/types.js';

/**
 * Makes the rest of `trx` the only transaction working on `keys` (names of anything, say a
 * sign-in limit's bucket), on every instance. PostgreSQL: a transaction-scoped advisory lock per
 * key, taken in sorted order so two callers never wait on each other in a circle, released at
 * commit. SQLite has one writer at a time (and one process using it): each transaction runs
 * alone already.
 */
export async function lockKeys(trx: Trx, dialect: DialectName, keys: readonly string[]): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const key of [...new Set(keys)].sort()) await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}
