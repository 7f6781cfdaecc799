import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

const MAX_STATEMENTS = 500;

export type Prepare = (sql: string) => SQLite.Statement;

/**
 * Prepared statements of the one SQLite connection, kept by SQL text (least recently used
 * dropped past 500). Kysely's driver would prepare every query anew, which costs more than
 * running it; the native reads and the bulk inserts use the same statements. Sharing is safe:
 * better-sqlite3 is synchronous, so two uses of a statement never overlap.
 */
export function createStatementCache(native: SQLite.Database): Prepare {
  const cache = new Map<string, SQLite.Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (statement) {
      cache.delete(sql);
    } else {
      statement = native.prepare(sql);
      if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  };
}

/** The connection as Kysely's SqliteDialect sees it, preparing through the cache. */
export function kyselyDatabase(native: SQLite.Database, prepare: Prepare): SqliteDatabase {
  return {
    close: () => native.close(),
    prepare: (sql: string) => prepare(sql) as unknown as ReturnType<SqliteDatabase['prepare']>,
  };
}
