import type SQLite from 'better-sqlite3';
import { quoteIdentifier as quote } from './quote-identifier.js';

// Rows found by, or inserted under, a unique key, many at once (Database.findOrInsert). They
// travel packed in typed arrays, as a parsed SBOM already holds them: no object and no string per
// row on the caller's side, and one copy of a few buffers to the SQLite writer's thread.

/**
 * Rows of `table`, packed. Row r (an index into the arrays) has:
 * - the values of `shared`;
 * - `textColumns` from `texts[offsets[r] .. offsets[r + 1]]`: UTF-8, the values joined by NUL,
 *   an empty value stored as null (as '' in the columns of `keepEmpty`);
 * - `binary.column` from `binary.bytes[r × width .. (r + 1) × width]`;
 * - each of `integers` from its `values[r]`.
 * `rows` names the rows to find or insert, in the order of the answer. `unique` names the
 * columns of a unique index that finds a stored row; none of them may be null.
 */
export interface PackedRows {
  table: string;
  unique: readonly string[];
  shared: Readonly<Record<string, number | string>>;
  textColumns: readonly string[];
  keepEmpty?: readonly string[];
  texts: Uint8Array;
  offsets: Uint32Array;
  binary: { column: string; bytes: Uint8Array; width: number };
  integers: ReadonlyArray<{ column: string; values: Uint8Array }>;
  rows: Uint32Array;
}

/** Every column of a row, in insert order: shared, text, binary, integers. */
export function packedColumns(rows: PackedRows): string[] {
  return [...Object.keys(rows.shared), ...rows.textColumns, rows.binary.column, ...rows.integers.map((i) => i.column)];
}

/** Reads packed rows' values, one row at a time, into one reused array (in packedColumns order). */
export function packedReader(rows: PackedRows): (r: number) => unknown[] {
  const shared = Object.values(rows.shared);
  const texts = Buffer.from(rows.texts.buffer, rows.texts.byteOffset, rows.texts.byteLength);
  const binary = Buffer.from(rows.binary.bytes.buffer, rows.binary.bytes.byteOffset, rows.binary.bytes.byteLength);
  const { width } = rows.binary;
  const textCount = rows.textColumns.length;
  const emptyAs = rows.textColumns.map((c) => (rows.keepEmpty?.includes(c) ? '' : null));
  const values: unknown[] = new Array(shared.length + textCount + 1 + rows.integers.length);
  for (let i = 0; i < shared.length; i++) values[i] = shared[i];
  return (r) => {
    const fields = texts.toString('utf8', rows.offsets[r], rows.offsets[r + 1]).split('\u0000');
    let at = shared.length;
    for (let i = 0; i < textCount; i++) {
      const value = fields[i];
      values[at++] = value === undefined || value === '' ? emptyAs[i] : value;
    }
    values[at++] = binary.subarray(r * width, (r + 1) * width);
    for (const integer of rows.integers) values[at++] = integer.values[r];
    return values;
  };
}

/**
 * SQLite: finds or inserts every row of `rows` on `native`, which must be inside a transaction
 * that holds the write lock (so nobody inserts between a lookup and its insert); the id of each,
 * in `rows.rows` order. A row listed twice is inserted once: its second insert finds the first.
 */
export function findOrInsertNative(native: SQLite.Database, rows: PackedRows): Float64Array {
  if (!native.inTransaction) throw new Error('findOrInsertNative runs inside a transaction');
  const columns = packedColumns(rows);
  const position = new Map(columns.map((c, i) => [c, i]));
  const uniqueAt = rows.unique.map((c) => {
    const at = position.get(c);
    if (at === undefined) throw new Error(`unique column ${c} is not among the packed columns`);
    return at;
  });
  const find = native
    .prepare(`select id from ${quote(rows.table)} where ${rows.unique.map((c) => `${quote(c)} = ?`).join(' and ')}`)
    .pluck();
  // Inserted first, looked up only when it was there already: a new row costs one statement.
  const insert = native.prepare(
    `insert into ${quote(rows.table)} (${columns.map(quote).join(',')}) values (${columns.map(() => '?').join(',')}) on conflict do nothing`,
  );
  const read = packedReader(rows);
  const key: unknown[] = new Array(uniqueAt.length);
  const ids = new Float64Array(rows.rows.length);
  for (let p = 0; p < rows.rows.length; p++) {
    const values = read(rows.rows[p]!);
    const inserted = insert.run(values);
    if (inserted.changes === 1) {
      ids[p] = Number(inserted.lastInsertRowid);
      continue;
    }
    for (let k = 0; k < uniqueAt.length; k++) key[k] = values[uniqueAt[k]!];
    ids[p] = Number(find.get(key));
  }
  return ids;
}
