import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';
import type { DialectName } from './migrations/types.js';
import type { Availability } from './availability.js';

export type Trx = Transaction<DB>;
/** What repositories accept: the database itself or a transaction on it. */
export type Executor = Kysely<DB> | Trx;

/**
 * The handle every service receives. Feature code reads through `db` and writes through
 * `transaction`, which resolves only once the commit is durable. It never asks which database
 * it is talking to: that knowledge stays in this folder.
 */
export interface Database {
  readonly db: Kysely<DB>;
  readonly dialect: DialectName;
  /**
   * Runs `work` in a transaction and resolves after a durable commit. On SQLite concurrent
   * calls are group-committed (one fsync for a batch, each call isolated by a savepoint), so a
   * failing call never undoes another. Inside `work`, use only `trx`, and never nest calls:
   * a call from inside another's work rejects with NestedTransactionError.
   */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
  /**
   * Inserts many rows into `table` inside `trx` (a transaction from `transaction`), in the
   * fastest way this database offers. `values` holds the rows flat, one after another, each
   * in `columns` order (no array per row when there are 100,000 of them).
   */
  bulkInsert<T extends keyof DB & string>(
    trx: Trx,
    table: T,
    columns: ReadonlyArray<keyof DB[T] & string>,
    values: readonly unknown[],
  ): Promise<void>;
  /**
   * A token that changes whenever a transaction commits, in this process or any other; null
   * when this database cannot tell cheaply (PostgreSQL, an in-memory SQLite) or not at this
   * instant. Lets a cache of rows that must never be stale (API keys) skip the query while
   * nothing has been written: read the token before the query, keep the rows under it.
   */
  changeToken(): string | null;
  /**
   * Whether the database answered the last operation (transactions and pings): unavailable
   * after a connection or storage failure, available again after the next success. Listeners
   * hear each change once.
   */
  readonly availability: Availability;
  /** Cheap round trip for /readyz; a real write while the database is known to be failing. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
