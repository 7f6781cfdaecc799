import { AppError } from '../errors.js';
import { unstorableReason } from '../shared/storable-text.js';

// The last line of defence against text PostgreSQL cannot take: a NUL character makes it refuse
// the whole statement (22021, a 500 for the client), a lone surrogate would be stored as U+FFFD.
// The services check the fields they accept and name them; this check, just before a statement
// leaves for PostgreSQL, turns a path that a service does not check yet into the same 422
// instead of a 500, naming the column where the statement text shows it.

/** Most strings hold neither a NUL nor any surrogate: one scan, and the exact test only for the rest. */
const SUSPECT = /[\0\uD800-\uDFFF]/;

/** The column a `$n` placeholder is bound to, read off the statement text: `"col" = $n`, or an insert's column list. */
function columnOf(sql: string, index: number): string | undefined {
  const n = index + 1;
  const compared = new RegExp(`"(\\w+)"\\s*(?:=|<>|!=|like|ilike)\\s*\\$${n}(?!\\d)`, 'i').exec(sql);
  if (compared) return compared[1];
  const insert = /^\s*insert into "\w+" \(([^)]*)\) values/i.exec(sql);
  if (!insert) return undefined;
  const columns = insert[1]!.split(',').map((c) => c.trim().replace(/"/g, ''));
  return columns[index % columns.length];
}

/** Throws 422 `validation_failed` when a bound string cannot be stored. */
export function assertStorableParameters(sql: string, parameters: readonly unknown[] | undefined): void {
  if (!parameters) return;
  for (let i = 0; i < parameters.length; i++) {
    const value = parameters[i];
    if (typeof value !== 'string' || !SUSPECT.test(value)) continue;
    const reason = unstorableReason(value);
    if (!reason) continue;
    const column = columnOf(sql, i);
    const field = column ?? 'a text value';
    throw new AppError('validation_failed', `${field} ${reason}`, [{ path: column ? `/${column}` : '/', message: reason }]);
  }
}
