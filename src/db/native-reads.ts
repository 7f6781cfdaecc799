import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';

/**
 * A synchronous side door for compiled queries on SQLite (see queryTemplate). Kysely wraps every
 * query in a connection mutex and a chain of promises that cost several times what SQLite needs
 * for a point lookup. better-sqlite3 is synchronous and there is one connection, so a query run
 * directly cannot interleave with another; the one hazard is a transaction left open between two
 * awaits of a group-commit batch, whose uncommitted rows a direct read would see. Direct reads
 * are therefore used only while no transaction is open on the connection.
 */
export interface NativeReads {
  /** The rows, or undefined when the caller must go through Kysely (a transaction is open). */
  tryAll(sql: string, parameters: readonly unknown[]): unknown[] | undefined;
}

const registry = new WeakMap<Kysely<any>, NativeReads>();

export function registerNativeReads(db: Kysely<any>, native: SQLite.Database): void {
  const statements = new Map<string, SQLite.Statement>();
  registry.set(db, {
    tryAll(sql, parameters) {
      if (native.inTransaction) return undefined;
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = native.prepare(sql);
        if (statements.size > 200) statements.clear();
        statements.set(sql, statement);
      }
      return statement.reader ? statement.all(parameters as unknown[]) : undefined;
    },
  });
}

/** The side door for this executor, if it is a SQLite database handle (never a transaction). */
export function nativeReadsFor(executor: unknown): NativeReads | undefined {
  return registry.get(executor as Kysely<any>);
}
