import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Prepare } from './sqlite-statement-cache.js';

/**
 * A synchronous side door for compiled queries on SQLite (see queryTemplate). Kysely wraps every
 * query in a connection mutex and a chain of promises that cost several times what SQLite needs
 * for a point lookup or a one-row write. better-sqlite3 is synchronous and there is one
 * connection, so a statement run directly cannot interleave with another. Two uses are safe:
 * - on the database handle, only while no transaction is open on the connection (an open
 *   group-commit batch would otherwise show its uncommitted rows);
 * - on the group-commit batch's own transaction, registered while it runs: the batch holds the
 *   connection, so its statements are exactly the ones inside it.
 */
export interface NativeStatements {
  /** The rows ([] for a statement without results), or undefined: go through Kysely. */
  tryAll(sql: string, parameters: readonly unknown[]): unknown[] | undefined;
}

const registry = new WeakMap<object, NativeStatements>();

export function createNativeStatements(native: SQLite.Database, prepare: Prepare) {
  function run(sql: string, parameters: readonly unknown[]): unknown[] {
    const statement = prepare(sql);
    if (statement.reader) return statement.all(parameters as unknown[]);
    statement.run(parameters as unknown[]);
    return [];
  }
  return {
    /**
     * For the database handle, only outside any transaction. It runs whatever compiled statement
     * it is given: the templates used on the handle today are point reads, and a write would
     * commit on its own (autocommit), as it would through Kysely.
     */
    outside: { tryAll: (sql: string, p: readonly unknown[]) => (native.inTransaction ? undefined : run(sql, p)) } as NativeStatements,
    /** For the running batch's transaction: anything, inside it. */
    inside: { tryAll: (sql: string, p: readonly unknown[]) => (native.inTransaction ? run(sql, p) : undefined) } as NativeStatements,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: any Kysely instance or transaction, whatever its schema type
export function registerNative(executor: Kysely<any> | object, statements: NativeStatements): void {
  registry.set(executor, statements);
}

export function unregisterNative(executor: object): void {
  registry.delete(executor);
}

/** The side door for this executor, if it is SQLite's handle or the running batch's transaction. */
export function nativeFor(executor: unknown): NativeStatements | undefined {
  return registry.get(executor as object);
}
