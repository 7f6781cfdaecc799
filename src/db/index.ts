import { resolve } from 'node:path';
import type { Database } from './database.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

export type { Database, Executor, Trx } from './database.js';
export { migrateToLatest } from './migrate.js';

/** DATABASE_URL → a Database. `sqlite:<path>` (or `sqlite::memory:`) or `postgres://…`. */
export function openDatabase(url: string): Database {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return openSqlite(path === ':memory:' ? path : resolve(path));
  }
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url);
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}
export { isUnavailable, isUniqueViolation } from './errors.js';
