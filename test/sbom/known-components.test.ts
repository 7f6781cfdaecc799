import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KEY_LENGTH } from '../../src/sbom/component-rows.js';
import { KeyTable, KnownComponents } from '../../src/sbom/known-components.js';
import { KEY_STRIDE } from '../../src/sbom/read-sbom.js';

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

describe('KnownComponents (component ids remembered between uploads)', () => {
  it('finds what it remembered for the organisation, and nothing of another', () => {
    const known = new KnownComponents(100);
    known.remember('org-a', column(key('k1'), key('k2'), key('k3')), KEY_STRIDE, idsOf(11, 0, 13), all(3));
    const ids = new Float64Array(4);
    assert.equal(known.find('org-a', column(key('k3'), key('k2'), key('k1'), key('k9')), KEY_STRIDE, ids, 0, 4), 2);
    assert.deepEqual([...ids], [13, 0, 11, 0], 'an id of 0 (not stored) is not remembered');
    const theirs = new Float64Array(3);
    assert.equal(known.find('org-b', column(key('k1'), key('k2'), key('k3')), KEY_STRIDE, theirs, 0, 3), 0);
    assert.deepEqual([...theirs], [0, 0, 0]);
    assert.equal(known.size, 2);
  });

  it('remembers only the positions it is given, and finds only the range asked', () => {
    const known = new KnownComponents(100);
    const keys = column(key('s1'), key('s2'), key('s3'), key('s4'));
    known.remember('b', keys, KEY_STRIDE, idsOf(21, 22, 23, 24), [1, 3]);
    assert.equal(known.size, 2);
    const ids = new Float64Array(4);
    assert.equal(known.find('b', keys, KEY_STRIDE, ids, 0, 4), 2);
    assert.deepEqual([...ids], [0, 22, 0, 24]);
    const ranged = new Float64Array(4);
    assert.equal(known.find('b', keys, KEY_STRIDE, ranged, 2, 4), 1);
    assert.deepEqual([...ranged], [0, 0, 0, 24]);
  });

  it('forgets the organisations used least recently first, and stays within its bound', () => {
    const known = new KnownComponents(5);
    const a = column(key('a1'), key('a2'));
    const b = column(key('b1'), key('b2'));
    const c = column(key('c1'), key('c2'));
    known.remember('a', a, KEY_STRIDE, idsOf(1, 2), all(2));
    known.remember('b', b, KEY_STRIDE, idsOf(3, 4), all(2));
    known.find('a', a, KEY_STRIDE, new Float64Array(2), 0, 1); // a is now the most recent
    known.remember('c', c, KEY_STRIDE, idsOf(5, 6), all(2));
    assert.equal(known.size, 4);
    assert.equal(known.find('b', b, KEY_STRIDE, new Float64Array(2), 0, 2), 0, 'b went');
    assert.equal(known.find('a', a, KEY_STRIDE, new Float64Array(2), 0, 2), 2);
    assert.equal(known.find('c', c, KEY_STRIDE, new Float64Array(2), 0, 2), 2);
  });

  it('starts over for an organisation that alone outgrows the bound', () => {
    const known = new KnownComponents(4);
    const x = column(key('x1'), key('x2'), key('x3'));
    const y = column(key('y1'), key('y2'), key('y3'));
    known.remember('a', x, KEY_STRIDE, idsOf(1, 2, 3), all(3));
    known.remember('a', y, KEY_STRIDE, idsOf(4, 5, 6), all(3));
    assert.equal(known.size, 3);
    assert.equal(known.find('a', x, KEY_STRIDE, new Float64Array(3), 0, 3), 0);
    assert.equal(known.find('a', y, KEY_STRIDE, new Float64Array(3), 0, 3), 3);
    const z = column(key('z1'), key('z2'), key('z3'), key('z4'), key('z5'));
    known.remember('a', z, KEY_STRIDE, idsOf(7, 8, 9, 10, 11), all(5));
    assert.equal(known.size, 0, 'a slice larger than the bound is not remembered');
    assert.equal(known.find('a', y, KEY_STRIDE, new Float64Array(3), 0, 3), 0);
  });

  it('tells apart keys that differ in one byte anywhere, and keys that share the bytes it hashes', () => {
    const table = new KeyTable(16);
    // The same first eight bytes: one probe sequence, told apart by the rest.
    const keys = all(8).map((i) => `samehash${String.fromCharCode(65 + i)}`.padEnd(KEY_LENGTH, 'z'));
    const last = key('k').slice(0, KEY_LENGTH - 1);
    keys.push(`${last}A`, `${last}B`);
    const bytes = column(...keys);
    keys.forEach((_, i) => {
      table.set(bytes, i * KEY_STRIDE, 100 + i);
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

  it('grows by powers of two, at most half full, and keeps every key through growth', () => {
    const table = new KeyTable(4);
    const keys = Array.from({ length: 5_000 }, () => randomBytes(17).toString('base64url').slice(0, KEY_LENGTH));
    const bytes = column(...keys);
    for (let i = 0; i < keys.length; i++) table.set(bytes, i * KEY_STRIDE, i + 1);
    assert.equal(table.size, new Set(keys).size);
    assert.equal(table.capacity, 16_384);
    for (let i = 0; i < keys.length; i++) assert.equal(table.get(bytes, i * KEY_STRIDE), keys.indexOf(keys[i]!) + 1);
    table.reserve(9_000);
    assert.equal(table.capacity, 32_768);
    assert.equal(table.get(bytes, 4_999 * KEY_STRIDE), keys.indexOf(keys[4_999]!) + 1);
  });

  it('remembers 100,000 keys without growing the heap: no string or object per key', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const used = () => {
      gc();
      return getHeapStatistics().used_heap_size;
    };
    const known = new KnownComponents(200_000);
    const count = 100_000;
    const keys = Buffer.alloc(count * KEY_STRIDE, ',');
    for (let i = 0; i < count; i++) keys.write(randomBytes(17).toString('base64url').slice(0, KEY_LENGTH), i * KEY_STRIDE, 'latin1');
    const ids = Float64Array.from({ length: count }, (_, i) => i + 1);
    const positions = all(count);
    const before = used();
    known.remember('a', keys, KEY_STRIDE, ids, positions);
    const found = new Float64Array(count);
    assert.equal(known.find('a', keys, KEY_STRIDE, found, 0, count), count);
    const grown = used() - before;
    // A Map of 100,000 key strings held ~8 MB of the heap; the table lives outside it.
    assert.ok(grown < 1_000_000, `the heap grew by ${grown} bytes`);
    assert.deepEqual(found, ids);
  });
});
