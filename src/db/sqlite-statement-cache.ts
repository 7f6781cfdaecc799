import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

const MAX_STATEMENTS = 500;

/**
 * Kysely's SQLite driver prepares every query anew, which costs more than running it. The
 * queries an app issues are a small fixed set of SQL texts, so prepared statements are kept by
 * text (least recently used dropped past 500). Safe with one connection: Kysely's connection
 * mutex never lets two queries use a statement at once.
 */
export function withStatementCache(native: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => native.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = native.prepare(sql);
        if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}
