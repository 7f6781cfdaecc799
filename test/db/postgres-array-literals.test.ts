import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { PackedRows } from '../../src/db/index.js';
import { packedReader } from '../../src/db/packed-rows.js';
import { packedArrayLiterals } from '../../src/db/postgres-array-literals.js';
import { createTestDatabase, TEST_BACKEND, type TestDatabase } from '../helpers/db.js';

// The array literals PostgreSQL's findOrInsert sends, written from packed bytes: each value must
// arrive as packedReader reads it (the reference), whatever bytes it holds.

const COLUMNS = ['name', 'version', 'purl'];

/** Packed rows of `values` (a row per entry, a value per column; '' empty), keys of `width` bytes. */
function packedOf(values: string[][], pick?: number[]): PackedRows {
  const texts: Buffer[] = [];
  const offsets = new Uint32Array(values.length + 1);
  let at = 0;
  values.forEach((row, r) => {
    const text = Buffer.from(row.join('\u0000'));
    offsets[r] = at;
    at += text.length;
    texts.push(text);
  });
  offsets[values.length] = at;
  const keys = new Uint8Array(values.length * 4);
  for (let i = 0; i < keys.length; i++) keys[i] = (i * 37 + 5) % 256;
  return {
    table: 'components',
    unique: ['name'],
    shared: {},
    textColumns: COLUMNS,
    keepEmpty: ['name'],
    texts: new Uint8Array(Buffer.concat(texts)),
    offsets,
    binary: { column: 'key', bytes: keys, width: 4 },
    integers: [{ column: 'flag', values: Uint8Array.from(values, (_, r) => r % 3) }],
    rows: Uint32Array.from(pick ?? values.map((_, r) => r)),
  };
}

const HOSTILE = [
  ['a"b', '', 'c\\d'],
  ['', 'NULL', '{x,y}'],
  [' spaced ', '"', '\\'],
  ['é✓𝄞', '\\"\\', 'tab\there, newline\nthere'],
  ['', '', ''],
  ['last'], // fewer fields than columns: the rest are empty
];

describe('packedArrayLiterals', () => {
  it('writes quoted, escaped values; NULL for an empty value unless the column keeps it', () => {
    const literals = packedArrayLiterals(packedOf(HOSTILE), 0, HOSTILE.length);
    assert.equal(literals[0], '{"a\\"b",""," spaced ","é✓𝄞","","last"}');
    assert.equal(literals[1], '{NULL,"NULL","\\"","\\\\\\"\\\\",NULL,NULL}');
    assert.equal(literals[2], '{"c\\\\d","{x,y}","\\\\","tab\there, newline\nthere",NULL,NULL}');
    const rows = packedOf(HOSTILE);
    const hex = HOSTILE.map((_, r) => `"\\\\x${Buffer.from(rows.binary.bytes.subarray(r * 4, r * 4 + 4)).toString('hex')}"`);
    assert.equal(literals[3], `{${hex.join(',')}}`);
    assert.ok(literals[3]!.startsWith('{"\\\\x052a4f74",'), literals[3]);
    assert.equal(literals[4], '{0,1,2,0,1,2}');
  });

  it('writes the rows a chunk names, in its order', () => {
    const rows = packedOf(HOSTILE, [5, 0, 3, 3]);
    const literals = packedArrayLiterals(rows, 1, 2);
    assert.equal(literals[0], '{"a\\"b","é✓𝄞"}');
    assert.equal(literals[4], '{0,0}');
    assert.deepEqual(packedArrayLiterals(rows, 0, 0), ['{}', '{}', '{}', '{}', '{}']);
  });
});

describe('packedArrayLiterals on PostgreSQL', { skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL reads the literals' }, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase();
  });
  after(async () => {
    await t.drop();
  });

  it('arrives as packedReader reads each row, for hostile and random values', async () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = ['a', 'Z', '"', '\\', '{', '}', ',', ' ', '\t', 'é', '✓', '𝄞', 'NULL', "'", '\u0001'];
    const value = () => Array.from({ length: Math.floor(random() * 6) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const values = [...HOSTILE, ...Array.from({ length: 300 }, () => [value(), value(), value()])];
    const pick = values.map((_, r) => r).reverse();
    const rows = packedOf(values, pick);
    const literals = packedArrayLiterals(rows, 0, values.length);
    const { rows: got } = await sql<{ name: string | null; version: string | null; purl: string | null; key: Buffer; flag: number }>`
      select * from unnest(${literals[0]}::text[], ${literals[1]}::text[], ${literals[2]}::text[], ${literals[3]}::bytea[], ${literals[4]}::smallint[])
        as u(name, version, purl, key, flag)`.execute(t.database.db);
    const read = packedReader(rows);
    assert.equal(got.length, values.length);
    got.forEach((row, p) => {
      const expected = read(pick[p]!);
      assert.deepEqual(
        [row.name, row.version, row.purl, Buffer.from(row.key), Number(row.flag)],
        [expected[0], expected[1], expected[2], Buffer.from(expected[3] as Buffer), expected[4]],
        `row ${pick[p]}`,
      );
    });
  });
});
