import { CompiledQuery } from 'kysely';
import type { Trx } from './database.js';
import type { DialectName } from './migrations/types.js';
import { quoteIdentifier } from './quote-identifier.js';

// Inserting 100,000 rows through Kysely's query builder spends most of its time building and
// compiling the AST of each multi-row VALUES list. Here the statement text for a chunk is
// built once (per table, columns, chunk size and dialect) and the values are bound as a flat list.
// Feature code reaches this through Database.bulkInsert, which each dialect implements.

/** Bound parameters per statement (SQLite allows 32,766, PostgreSQL 65,535); ~1,000 rows of 8 columns measured as fast as larger statements. */
export const MAX_PARAMETERS = 8_192;

const texts = new Map<string, string>();

/** `insert into "table" ("a","b") values (…),(…)` for `rows` rows, cached. */
export function insertText(dialect: DialectName, table: string, columns: readonly string[], rows: number): string {
  const key = `${dialect}\u0000${table}\u0000${columns.join(',')}\u0000${rows}`;
  let text = texts.get(key);
  if (text === undefined) {
    let n = 0;
    const tuple = () => `(${columns.map(() => (dialect === 'postgres' ? `$${++n}` : '?')).join(',')})`;
    text = `insert into ${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(',')}) values ${Array.from({ length: rows }, tuple).join(',')}`;
    if (texts.size > 64) texts.clear();
    texts.set(key, text);
  }
  return text;
}

/** Rows of `values` (flat, row after row), checked to be whole rows. */
export function rowCount(columns: readonly string[], values: readonly unknown[]): number {
  const rows = values.length / columns.length;
  if (!Number.isInteger(rows)) throw new Error(`bulk insert: ${values.length} values do not make rows of ${columns.length} columns`);
  return rows;
}

/**
 * The portable implementation: chunks of as many rows as the parameter limit allows, each one
 * statement run through Kysely on the transaction (used on PostgreSQL).
 */
export async function chunkedInsert(
  trx: Trx,
  dialect: DialectName,
  table: string,
  columns: readonly string[],
  values: readonly unknown[],
): Promise<void> {
  const rows = rowCount(columns, values);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  for (let start = 0; start < rows; start += perStatement) {
    const count = Math.min(perStatement, rows - start);
    const parameters = values.slice(start * columns.length, (start + count) * columns.length);
    for (let i = 0; i < parameters.length; i++) if (parameters[i] === undefined) parameters[i] = null;
    await trx.executeQuery(CompiledQuery.raw(insertText(dialect, table, columns, count), parameters));
  }
}
