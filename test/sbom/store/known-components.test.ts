import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KEY_LENGTH } from '../../../src/sbom/parse/component-rows.js';
import { KeyTable, KnownComponents } from '../../../src/sbom/store/known-components.js';
import { KEY_STRIDE } from '../../../src/sbom/parse/read-sbom.js';

/** A key column as a reading has it: KEY_LENGTH ASCII bytes and a comma each. */
function column(...keys: string[]): Uint8Array {
  const bytes = Buffer.alloc(keys.length * KEY_STRIDE, ',');
  keys.forEach((key, i) => {
    assert.equal(key.length, KEY_LENGTH);
    bytes.write(key, i * KEY_STRIDE, 'latin1');
  });
  return bytes;
}
const key = (name: string) => name.padEnd(KEY_LENGTH, '_');
const idsOf = (...values: number[]) => Float64Array.from(values);
const all = (n: number) => Array.from({ length: n }, (_, i) => i);

/** reserve() then remember(), as storing a document does (storeInSlices). */
function rememberAll(known: KnownComponents, orgId: string, keys: Uint8Array, ids: Float64Array, positions: number[]): void {
  known.reserve(orgId, positions.length);
  known.remember(orgId, keys, KEY_STRIDE, ids, positions);
}

describe('KnownComponents (component ids remembered between uploads)', () => {
  it('finds what it remembered for the organisation, and nothing of another', () => {
    const known = new KnownComponents(1 << 20);
    rememberAll(known, 'org-a', column(key('k1'), key('k2'), key('k3')), idsOf(11, 0, 13), all(3));
    const ids = new Float64Array(4);
    assert.equal(known.find('org-a', column(key('k3'), key('k2'), key('k1'), key('k9')), KEY_STRIDE, ids, 0, 4), 2);
    assert.deepEqual([...ids], [13, 0, 11, 0], 'an id of 0 (not stored) is not remembered');
    const theirs = new Float64Array(3);
    assert.equal(known.find('org-b', column(key('k1'), key('k2'), key('k3')), KEY_STRIDE, theirs, 0, 3), 0);
    assert.deepEqual([...theirs], [0, 0, 0]);
    assert.equal(known.size, 2);
  });

  it('remembers only the positions it is given, and finds only the range asked', () => {
    const known = new KnownComponents(1 << 20);
    const keys = column(key('s1'), key('s2'), key('s3'), key('s4'));
    rememberAll(known, 'b', keys, idsOf(21, 22, 23, 24), [1, 3]);
    assert.equal(known.size, 2);
    const ids = new Float64Array(4);
    assert.equal(known.find('b', keys, KEY_STRIDE, ids, 0, 4), 2);
    assert.deepEqual([...ids], [0, 22, 0, 24]);
    const ranged = new Float64Array(4);
    assert.equal(known.find('b', keys, KEY_STRIDE, ranged, 2, 4), 1);
    assert.deepEqual([...ranged], [0, 0, 0, 24]);
  });

  it('forgets an organisation that grows alone past the bound beyond the room made for it', () => {
    const known = new KnownComponents(KeyTable.MIN_BYTES);
    const keys = column(...all(12).map((i) => key(`g${i}`)));
    const ids = Float64Array.from(all(12), (i) => i + 1);
    known.reserve('a', 4);
    // Two uploads at once: each remembers into the room the other made.
    known.remember('a', keys, KEY_STRIDE, ids, all(4));
    known.remember('a', keys, KEY_STRIDE, ids, all(12).slice(4));
    assert.equal(known.bytes, 0);
    assert.equal(known.size, 0);
    assert.equal(known.find('a', keys, KEY_STRIDE, new Float64Array(12), 0, 12), 0);
  });

  it('remembers nothing for an organisation it made no room for', () => {
    const known = new KnownComponents(1 << 20);
    known.remember('a', column(key('a1')), KEY_STRIDE, idsOf(1), [0]);
    assert.equal(known.size, 0);
    assert.equal(known.bytes, 0);
  });

  it('forgets the organisations used least recently first, and stays within its bound in bytes', () => {
    // Room for three of the smallest tables.
    const known = new KnownComponents(3 * KeyTable.MIN_BYTES);
    const a = column(key('a1'), key('a2'));
    const b = column(key('b1'), key('b2'));
    const c = column(key('c1'), key('c2'));
    const d = column(key('d1'), key('d2'));
    rememberAll(known, 'a', a, idsOf(1, 2), all(2));
    rememberAll(known, 'b', b, idsOf(3, 4), all(2));
    rememberAll(known, 'c', c, idsOf(5, 6), all(2));
    known.find('a', a, KEY_STRIDE, new Float64Array(2), 0, 1); // a is now the most recent
    rememberAll(known, 'd', d, idsOf(7, 8), all(2));
    assert.equal(known.bytes, 3 * KeyTable.MIN_BYTES);
    assert.equal(known.find('b', b, KEY_STRIDE, new Float64Array(2), 0, 2), 0, 'b went');
    for (const [org, keys] of [
      ['a', a],
      ['c', c],
      ['d', d],
    ] as const)
      assert.equal(known.find(org, keys, KEY_STRIDE, new Float64Array(2), 0, 2), 2, org);
  });

  it('counts what each organisation costs: a thousand organisations of one component stay within the bound', () => {
    const known = new KnownComponents(64 * KeyTable.MIN_BYTES);
    for (let org = 0; org < 1_000; org++) rememberAll(known, `org-${org}`, column(key(`k${org}`)), idsOf(org + 1), [0]);
    assert.equal(known.bytes, 64 * KeyTable.MIN_BYTES);
    assert.equal(known.size, 64, 'the 64 most recent');
    assert.equal(known.find('org-999', column(key('k999')), KEY_STRIDE, new Float64Array(1), 0, 1), 1);
    assert.equal(known.find('org-935', column(key('k935')), KEY_STRIDE, new Float64Array(1), 0, 1), 0);
  });

  it('starts over for an organisation that alone would outgrow the bound, and forgets it for a document over the bound', () => {
    // One smallest table: room for 8 keys.
    const known = new KnownComponents(KeyTable.MIN_BYTES);
    const x = column(key('x1'), key('x2'), key('x3'), key('x4'), key('x5'));
    const y = column(key('y1'), key('y2'), key('y3'), key('y4'), key('y5'));
    rememberAll(known, 'a', x, idsOf(1, 2, 3, 4, 5), all(5));
    rememberAll(known, 'a', y, idsOf(6, 7, 8, 9, 10), all(5));
    assert.equal(known.size, 5);
    assert.equal(known.find('a', x, KEY_STRIDE, new Float64Array(5), 0, 5), 0);
    assert.equal(known.find('a', y, KEY_STRIDE, new Float64Array(5), 0, 5), 5);
    const z = column(...all(9).map((i) => key(`z${i}`)));
    rememberAll(
      known,
      'a',
      z,
      Float64Array.from(all(9), (i) => i + 11),
      all(9),
    );
    assert.equal(known.size, 0, 'more than the bound holds: nothing remembered');
    assert.equal(known.bytes, 0);
    assert.equal(known.find('a', y, KEY_STRIDE, new Float64Array(5), 0, 5), 0);
  });
});

describe('KeyTable (open addressing over bytes)', () => {
  it('tells apart keys that differ in one byte anywhere, and keys that share the bytes it hashes', () => {
    const table = new KeyTable(4);
    // The same first eight bytes: one probe sequence, whatever the seed; told apart by the rest.
    const keys = all(8).map((i) => `samehash${String.fromCharCode(65 + i)}`.padEnd(KEY_LENGTH, 'z'));
    const last = key('k').slice(0, KEY_LENGTH - 1);
    keys.push(`${last}A`, `${last}B`);
    const bytes = column(...keys);
    keys.forEach((_, i) => {
      assert.equal(table.set(bytes, i * KEY_STRIDE, 100 + i), true);
    });
    assert.equal(table.size, keys.length);
    keys.forEach((_, i) => {
      assert.equal(table.get(bytes, i * KEY_STRIDE), 100 + i, keys[i]);
    });
    assert.equal(table.get(column(`${last}C`), 0), 0);
    assert.equal(table.get(column('samehashZ'.padEnd(KEY_LENGTH, 'z')), 0), 0);
    table.set(bytes, 0, 999);
    assert.equal(table.get(bytes, 0), 100, 'a key already there keeps its id');
    assert.equal(table.size, keys.length);
  });

  it('gives up on keys crafted to pile up on one slot after 64 probes, and keeps the others', () => {
    const table = new KeyTable(1_000);
    // 200 keys with the same hashed bytes: each probe would walk all those before it.
    const piled = all(200).map((i) => `collide!${i.toString().padStart(14, '0')}`);
    const bytes = column(...piled);
    const kept = all(200).filter((i) => table.set(bytes, i * KEY_STRIDE, i + 1));
    assert.deepEqual(kept, all(64));
    assert.equal(table.get(bytes, 63 * KEY_STRIDE), 64);
    assert.equal(table.get(bytes, 64 * KEY_STRIDE), 0, 'left out, so looked up in the database');
    const other = column(key('other'));
    assert.equal(table.set(other, 0, 500), true);
    assert.equal(table.get(other, 0), 500);
  });

  it('has a power-of-two capacity at most half full, grows by doubling, and keeps every key through growth', () => {
    assert.equal(new KeyTable(0).capacity, KeyTable.MIN_CAPACITY);
    assert.equal(new KeyTable(1_000).capacity, 2_048);
    assert.equal(KeyTable.bytesFor(1_000), 2_048 * 32);
    const table = new KeyTable(2);
    const keys = Array.from({ length: 5_000 }, () => randomBytes(17).toString('base64url').slice(0, KEY_LENGTH));
    const bytes = column(...keys);
    for (let i = 0; i < keys.length; i++) table.set(bytes, i * KEY_STRIDE, i + 1);
    assert.equal(table.size, new Set(keys).size);
    assert.equal(table.capacity, 16_384);
    assert.equal(table.bytes, 16_384 * 32);
    for (let i = 0; i < keys.length; i++) assert.equal(table.get(bytes, i * KEY_STRIDE), keys.indexOf(keys[i]!) + 1);
    table.reserve(9_000);
    assert.equal(table.capacity, 32_768);
    assert.equal(table.get(bytes, 4_999 * KEY_STRIDE), keys.indexOf(keys[4_999]!) + 1);
  });

  it('remembers and finds 100,000 keys without growing the heap: no string or object per key', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const used = () => {
      gc();
      return getHeapStatistics().used_heap_size;
    };
    const known = new KnownComponents(24 << 20);
    const count = 100_000;
    const keys = Buffer.alloc(count * KEY_STRIDE, ',');
    for (let i = 0; i < count; i++) keys.write(randomBytes(17).toString('base64url').slice(0, KEY_LENGTH), i * KEY_STRIDE, 'latin1');
    const ids = Float64Array.from({ length: count }, (_, i) => i + 1);
    const positions = all(count);
    const found = new Float64Array(count);
    const before = used();
    rememberAll(known, 'a', keys, ids, positions);
    assert.equal(known.find('a', keys, KEY_STRIDE, found, 0, count), count);
    const grown = used() - before;
    // A Map of 100,000 key strings held ~8 MB of the heap; the table lives outside it.
    assert.ok(grown < 1_000_000, `the heap grew by ${grown} bytes`);
    assert.deepEqual(found, ids);
    assert.equal(known.bytes, KeyTable.bytesFor(count));
  });
});
