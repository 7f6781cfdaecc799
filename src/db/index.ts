import { resolve } from 'node:path';
import type { Database } from './database.js';
import { DEFAULT_POSTGRES_TIMEOUTS, openPostgres, type PostgresTimeouts } from './postgres.js';
import { openSqlite } from './sqlite.js';

export type { Database, Executor, Trx } from './database.js';
export type { AvailabilityChange } from './availability.js';
export { migrateToLatest } from './migrate.js';
export { DEFAULT_POSTGRES_TIMEOUTS, type PostgresTimeouts } from './postgres.js';
export { NestedTransactionError } from './transaction-scope.js';
export { inList } from './in-list.js';
export type { DialectName } from './migrations/types.js';
export type { PackedRows } from './packed-rows.js';

/** DATABASE_URL → a Database. `sqlite:<path>` (or `sqlite::memory:`) or `postgres://…`. */
export function openDatabase(url: string, timeouts: PostgresTimeouts = DEFAULT_POSTGRES_TIMEOUTS): Database {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return openSqlite(path === ':memory:' ? path : resolve(path));
  }
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, 10, timeouts);
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}
export { describeCause, isUnavailable, isUniqueViolation } from './errors.js';
