import type { SelectQueryBuilder } from 'kysely';
import type { DialectName } from './migrations/types.js';

/**
 * Rows a worker claims: on PostgreSQL `FOR UPDATE SKIP LOCKED`, so concurrent claimers on other
 * instances pass over each other's rows instead of waiting or taking the same ones. SQLite has one
 * writer at a time (and one process using it): its transaction alone serialises the claims.
 */
export function skipLocked<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: DialectName,
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
}
