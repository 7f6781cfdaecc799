import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { chunkedInsert } from './bulk-insert.js';
import type { Database } from './database.js';
import type { DB } from './schema.js';

const TIMESTAMPTZ_OID = 1184;
const parseTimestamp = pg.types.getTypeParser(TIMESTAMPTZ_OID);

// Repositories get the same RFC 3339 strings that SQLite stores. The parser is set per pool,
// so pg's global defaults stay untouched for anything else in the process.
const types = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (oid === TIMESTAMPTZ_OID && format !== 'binary') {
      return (value: string) => (parseTimestamp(value) as Date).toISOString();
    }
    return pg.types.getTypeParser(oid, 'text');
  },
};

export function openPostgres(url: string, poolSize = 10): Database {
  // Bounded waits: a database that does not answer becomes a 503, never a request hanging forever.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: types as never,
    connectionTimeoutMillis: 5_000,
    query_timeout: 30_000,
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    // PostgreSQL commits durably (synchronous_commit=on) and group-commits concurrent
    // transactions itself; each call gets its own transaction on a pooled connection.
    transaction(work) {
      return db.transaction().execute(work);
    },
    // Multi-row INSERTs of up to ~1,000 rows, one round trip each, on the transaction's connection.
    bulkInsert(trx, table, columns, values) {
      return chunkedInsert(trx, 'postgres', table, columns, values);
    },
    // No cheap, exact signal of other sessions' commits: readers always query.
    changeToken: () => null,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}
