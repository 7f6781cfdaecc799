import { CompiledQuery } from 'kysely';
import type { Executor } from './database.js';
import type { DialectName } from './migrations/types.js';
import type { DB } from './schema.js';

// Inserting 100,000 rows through Kysely's query builder spends most of its time building and
// compiling the AST of each multi-row VALUES list. Here the statement text for a chunk is
// built once (per table, columns, chunk size and dialect) and the values are bound as a flat list.

/** Bound parameters per statement (SQLite allows 32,766, PostgreSQL 65,535); ~1,000 rows of 8 columns measured as fast as larger statements. */
const MAX_PARAMETERS = 8_000;

const statements = new Map<string, string>();

function statement(dialect: DialectName, table: string, columns: readonly string[], rows: number): string {
  const key = `${dialect}\u0000${table}\u0000${columns.join(',')}\u0000${rows}`;
  let text = statements.get(key);
  if (text === undefined) {
    const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
    let n = 0;
    const tuple = () => `(${columns.map(() => (dialect === 'postgres' ? `$${++n}` : '?')).join(',')})`;
    text = `insert into ${quote(table)} (${columns.map(quote).join(',')}) values ${Array.from({ length: rows }, tuple).join(',')}`;
    if (statements.size > 64) statements.clear();
    statements.set(key, text);
  }
  return text;
}

/**
 * Inserts `rows` (each an array of values in `columns` order) in as few statements as the
 * parameter limit allows, on `executor` (pass the transaction to keep them in it).
 */
export async function bulkInsert<T extends keyof DB & string>(
  executor: Executor,
  dialect: DialectName,
  table: T,
  columns: ReadonlyArray<keyof DB[T] & string>,
  rows: ReadonlyArray<readonly unknown[]>,
): Promise<void> {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const parameters: unknown[] = [];
    for (const row of chunk) for (const value of row) parameters.push(value === undefined ? null : value);
    await executor.executeQuery(CompiledQuery.raw(statement(dialect, table, columns, chunk.length), parameters));
  }
}
