import { sql } from 'kysely';
import { quoteIdentifier as quote } from './quote-identifier.js';
import type { Database } from './database.js';
import { packedArrayLiterals } from './postgres-array-literals.js';
import { packedColumns, packedReader, type PackedRows } from './packed-rows.js';
import type { Slots } from '../shared/slots.js';

// PostgreSQL's Database.findOrInsert: chunks of rows, each in a transaction of its own, three at
// a time (PostgreSQL inserts on as many cores as it has connections at work; three kept the two
// cores busier than two), and never more than the process's bulk slots at once whatever the
// number of calls (an upload stores its slices two at a time, and uploads run side by side: the
// pool's other connections stay free for everyone's requests). Each binds one array per column,
// written as one literal from the packed bytes (postgres-array-literals.ts): an INSERT … SELECT FROM unnest(…) ON CONFLICT DO
// NOTHING whose new rows' ids come back with their positions, then the ids of the rows that were
// there already through the unique index. A stored row is never changed, and the caller refers
// to the rows only after all have been stored, so a chunk that commits while another fails leaves
// rows the next call finds.

const CHUNK = 5_000;
const AT_ONCE = 3;
/** Two uploads inserting some of the same new rows in another order can deadlock; the one PostgreSQL picks is retried. */
const ATTEMPTS = 3;
const RETRIED = new Set(['40P01', '40001']);

export async function findOrInsertPostgres(database: Database, rows: PackedRows, slots: Slots): Promise<Float64Array> {
  const ids = new Float64Array(rows.rows.length);
  if (ids.length === 0) return ids;
  const shared = Object.keys(rows.shared);
  const perRow = packedColumns(rows).slice(shared.length);
  const typeOf = (column: string) => (rows.textColumns.includes(column) ? 'text' : column === rows.binary.column ? 'bytea' : 'smallint');
  const sharedValue = (column: string) => {
    const value = rows.shared[column]!;
    return sql`${value}::${sql.raw(typeof value === 'number' ? 'integer' : 'text')}`;
  };
  const table = sql.raw(quote(rows.table));
  const names = sql.raw([...shared, ...perRow].map(quote).join(','));
  const aliases = perRow.map((_, i) => `c${i}`);
  const uniquePerRow = rows.unique.filter((c) => !shared.includes(c));
  const uniqueAt = uniquePerRow.map((c) => perRow.indexOf(c));
  const sharedMatch = shared.filter((c) => rows.unique.includes(c)).map((c) => sql`${sql.ref(`t.${c}`)} = ${sharedValue(c)}`);
  const read = packedReader(rows);

  /** The values of the unique columns of the chunk's rows at `positions`, a list per column. */
  function uniqueValues(from: number, positions: readonly number[]): unknown[][] {
    const values: unknown[][] = uniqueAt.map(() => new Array(positions.length));
    positions.forEach((p, k) => {
      const row = read(rows.rows[from + p]!);
      uniqueAt.forEach((c, u) => {
        const value = row[shared.length + c];
        // The binary value is a view on the reader's buffer: copied, as pg sends it later.
        values[u]![k] = Buffer.isBuffer(value) ? Buffer.from(value) : value;
      });
    });
    return values;
  }

  async function storeChunk(from: number, count: number): Promise<void> {
    // One literal a column, written from the packed bytes (postgres-array-literals.ts).
    const literals = packedArrayLiterals(rows, from, count);
    for (let attempt = 1; ; attempt++) {
      try {
        await database.transaction(async (trx) => {
          // Nothing of an attempt that rolled back stands.
          ids.fill(0, from, from + count);
          const arrays = sql.join(literals.map((literal, c) => sql`${literal}::${sql.raw(typeOf(perRow[c]!))}[]`));
          // The inserted rows' ids with their positions in the chunk, joined in the statement on
          // the unique columns: only two integers a row travel back (a row listed twice gets
          // the one id at both positions).
          const join = sql.raw(uniquePerRow.map((c, i) => `i.${quote(c)} = u.${aliases[uniqueAt[i]!]}`).join(' and '));
          const { rows: inserted } = await sql<{ id: string | number; p: string | number }>`
            with u as materialized (
              select * from unnest(${arrays}) with ordinality as u(${sql.raw(aliases.join(','))}, p)
            ), i as (
              insert into ${table} (${names})
              select ${sql.join(shared.map(sharedValue))}${sql.raw(shared.length > 0 ? ',' : '')} ${sql.raw(aliases.map((a) => `u.${a}`).join(','))}
              from u
              on conflict do nothing
              returning id, ${sql.raw(uniquePerRow.map(quote).join(','))}
            )
            select i.id, (u.p - 1)::int as p from i join u on ${join}`.execute(trx);
          for (const row of inserted) ids[from + Number(row.p)] = Number(row.id);
          // The rows there already.
          const stored: number[] = [];
          for (let p = 0; p < count; p++) if (ids[from + p] === 0) stored.push(p);
          if (stored.length === 0) return;
          // A probe of the unique index per row, whatever the statistics say (a fresh table's
          // made the planner hash-join a scan of every row): LIMIT 1 keeps it a subquery.
          const keyArrays = sql.join(uniqueValues(from, stored).map((values, u) => sql`${values}::${sql.raw(typeOf(uniquePerRow[u]!))}[]`));
          const keyAliases = uniquePerRow.map((_, i) => `k${i}`);
          const conditions = sql.join(
            [...sharedMatch, ...uniquePerRow.map((c, i) => sql`${sql.ref(`t.${c}`)} = ${sql.raw(`u.${keyAliases[i]}`)}`)],
            sql` and `,
          );
          const { rows: found } = await sql<{ p: number; id: number }>`
            select (u.p - 1)::int as p, f.id from unnest(${keyArrays}) with ordinality as u(${sql.raw(keyAliases.join(','))}, p)
            cross join lateral (select t.id from ${table} as t where ${conditions} limit 1) as f`.execute(trx);
          for (const row of found) ids[from + stored[Number(row.p)]!] = Number(row.id);
        });
        // A row another transaction was inserting when ours skipped it, and which that one then
        // rolled back, is in neither answer: the next attempt inserts it.
        if (ids.subarray(from, from + count).every((id) => id !== 0)) return;
        if (attempt >= ATTEMPTS) throw new Error(`findOrInsert: rows ${from}–${from + count - 1} were neither found nor stored`);
      } catch (error) {
        if (attempt >= ATTEMPTS || !RETRIED.has(String((error as { code?: unknown }).code))) throw error;
      }
    }
  }

  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const from = next;
      next += CHUNK;
      await slots.run(() => storeChunk(from, Math.min(CHUNK, ids.length - from)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, Math.ceil(ids.length / CHUNK)) }, worker));
  return ids;
}
