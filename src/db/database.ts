import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';
import type { DialectName } from './migrations/types.js';
import type { Availability } from './availability.js';
import type { PackedRows } from './packed-rows.js';

export type Trx = Transaction<DB>;
/** What repositories accept: the database itself or a transaction on it. */
export type Executor = Kysely<DB> | Trx;

export interface TransactionOptions {
  /**
   * Names the row lock the transaction will wait for (say an organisation's, which numbering
   * and the registry take): of the transactions naming the same one, one at a time runs in this
   * process on PostgreSQL, the others wait in the process, so it waits for that lock behind at
   * most one transaction of each other instance. A burst of them would otherwise fill the pool
   * with transactions waiting for that one lock, each holding a connection everyone else needs
   * and each wait counted against the statement timeout, which a burst on a busy host outlasts
   * (the lock's holders are slow there too). SQLite runs its transactions one at a time already.
   */
  queue?: string;
}

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
  transaction<T>(work: (trx: Trx) => Promise<T>, options?: TransactionOptions): Promise<T>;
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
   * Finds each of `rows` by its unique key, or inserts it, in transactions of its own (never
   * inside `transaction`), and resolves with the id of each in `rows.rows` order once the new
   * ones are durable. For many rows at once (an SBOM's new components), of a table whose rows
   * never change: on SQLite all in one transaction, written by a thread of their own while the
   * event loop serves everyone else (this process's other writes wait their turn); on
   * PostgreSQL in chunks of 5,000, a transaction each, three at a time. A call that fails may
   * leave some rows stored, which the next call finds.
   */
  findOrInsert(rows: PackedRows): Promise<Float64Array>;
  /**
   * A token that changes whenever API keys or organisations change, in this process or any
   * other, and reflects every such change committed before the call; null when this database
   * cannot tell cheaply (an in-memory SQLite) or not at this instant. SQLite: any commit moves
   * it (the wal-index header, read at the call). PostgreSQL: changes to those tables notify every
   * instance (migration 013), any commit of this process moves it, and the answer waits for a
   * round trip on the listening connection (shared by concurrent callers) so that no notice of
   * an earlier commit is still on its way. Lets a cache of those rows (API keys with their
   * organisation's registry sequence number) skip the query while nothing changed: read the
   * token before the query, keep the rows under it.
   */
  changeToken(): Promise<string | null>;
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
