import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KnownComponents } from '../../src/sbom/known-components.js';

const idsOf = (...values: number[]) => Float64Array.from(values);

describe('KnownComponents (component ids remembered between uploads)', () => {
  it('finds what it remembered for the organisation, and nothing of another', () => {
    const known = new KnownComponents(100);
    known.remember('org-a', ['k1', 'k2', 'k3'], idsOf(11, 0, 13));
    const ids = new Float64Array(4);
    assert.equal(known.find('org-a', ['k3', 'k2', 'k1', 'k9'], ids), 2);
    assert.deepEqual([...ids], [13, 0, 11, 0], 'an id of 0 (not stored) is not remembered');
    const theirs = new Float64Array(3);
    assert.equal(known.find('org-b', ['k1', 'k2', 'k3'], theirs), 0);
    assert.deepEqual([...theirs], [0, 0, 0]);
    assert.equal(known.size, 2);
  });

  it('forgets the organisations used least recently first, and stays within its bound', () => {
    const known = new KnownComponents(5);
    known.remember('a', ['a1', 'a2'], idsOf(1, 2));
    known.remember('b', ['b1', 'b2'], idsOf(3, 4));
    known.find('a', ['a1'], new Float64Array(1)); // a is now the most recent
    known.remember('c', ['c1', 'c2'], idsOf(5, 6));
    assert.equal(known.size, 4);
    assert.equal(known.find('b', ['b1', 'b2'], new Float64Array(2)), 0, 'b went');
    assert.equal(known.find('a', ['a1', 'a2'], new Float64Array(2)), 2);
    assert.equal(known.find('c', ['c1', 'c2'], new Float64Array(2)), 2);
  });

  it('starts over for an organisation that alone outgrows the bound, and remembers in slices', () => {
    const known = new KnownComponents(4);
    known.remember('a', ['x1', 'x2', 'x3'], idsOf(1, 2, 3));
    known.remember('a', ['y1', 'y2', 'y3'], idsOf(4, 5, 6));
    assert.equal(known.size, 3);
    assert.equal(known.find('a', ['x1', 'x2', 'x3'], new Float64Array(3)), 0);
    assert.equal(known.find('a', ['y1', 'y2', 'y3'], new Float64Array(3)), 3);
    known.remember('a', ['z1', 'z2', 'z3', 'z4', 'z5'], idsOf(7, 8, 9, 10, 11));
    assert.equal(known.size, 0, 'a slice larger than the bound is not remembered');
    const keys = ['s1', 's2', 's3', 's4'];
    known.remember('b', keys, idsOf(21, 22, 23, 24), 0, 2);
    known.remember('b', keys, idsOf(21, 22, 23, 24), 2, 4);
    const ids = new Float64Array(4);
    assert.equal(known.find('b', keys, ids, 1, 3), 2, 'only the range asked');
    assert.deepEqual([...ids], [0, 22, 23, 0]);
  });

  it('covers documents up to its size per document', () => {
    const known = new KnownComponents(100, 10);
    assert.equal(known.covers(10), true);
    assert.equal(known.covers(11), false);
    assert.equal(new KnownComponents(100).covers(100), true);
  });

  it('keeps a copy of each key, not the list it was split from', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const known = new KnownComponents(1_000);
    const used = () => {
      gc();
      return getHeapStatistics().used_heap_size;
    };
    const before = used();
    // 100,000 keys of 22 characters in one list (~2.3 MB); ten of them remembered. In a function
    // of its own, so that nothing of the test holds the list.
    const rememberTen = () => {
      const keys = Array.from({ length: 100_000 }, (_, i) => `k${i}`.padEnd(22, 'x'))
        .join(',')
        .split(',');
      known.remember(
        'a',
        keys,
        Float64Array.from({ length: 10 }, (_, i) => i + 1),
        0,
        10,
      );
    };
    rememberTen();
    const retained = used() - before;
    assert.ok(retained < 500_000, `${retained} bytes still held: the list stayed alive`);
    assert.equal(known.find('a', ['k3'.padEnd(22, 'x')], new Float64Array(1)), 1);
  });
});
