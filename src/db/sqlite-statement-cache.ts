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

/**
 * The connection as Kysely's SqliteDialect sees it, preparing through the cache of whichever
 * native connection is current (`current` opens it if there is none, or throws the storage
 * error that prevents it). A full disk or an I/O error can make SQLite roll a transaction back
 * by itself; Kysely then still sends `rollback`, whose "no transaction is active" would replace
 * the real error. Here that `rollback` does nothing, so the caller hears SQLITE_FULL,
 * SQLITE_IOERR… instead.
 */
export function kyselyDatabase(
  current: () => { native: SQLite.Database; prepare: Prepare },
  close: () => void,
  autocommitWrite: (sql: string) => void = () => {},
): SqliteDatabase {
  const noTransaction = { reader: false, run: () => ({ changes: 0, lastInsertRowid: 0 }) };
  return {
    close,
    prepare: (sql: string) => {
      const c = current();
      if (sql === 'rollback' && !c.native.inTransaction) return noTransaction as unknown as ReturnType<SqliteDatabase['prepare']>;
      const statement = c.prepare(sql);
      if (!statement.reader && !c.native.inTransaction) autocommitWrite(sql);
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}
