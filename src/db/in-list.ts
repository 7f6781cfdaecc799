import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from './migrations/types.js';

/**
 * `column IN (values)` for long lists. On PostgreSQL one array parameter (`= any($1::integer[])`):
 * a list of thousands of parameters cost more to send, parse and plan than to run (a new
 * 10,000-component SBOM's matching was mostly that). On SQLite, in process, a list of parameters.
 */
export function inList(
  dialect: DialectName,
  column: string,
  values: ReadonlyArray<number | string>,
  type: 'integer' | 'text',
): RawBuilder<SqlBool> {
  if (dialect === 'postgres') return sql<SqlBool>`${sql.ref(column)} = any(${sql.val(values)}::${sql.raw(type)}[])`;
  if (values.length === 0) return sql<SqlBool>`0 = 1`;
  return sql<SqlBool>`${sql.ref(column)} in (${sql.join(values.map((v) => sql.val(v)))})`;
}
