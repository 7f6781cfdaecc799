import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareValues, covers, isDisjoint, isEqual, isSubset, isSuperset } from '../../../../src/vulns/match/cpe/compare.js';
import { parseWfnValue } from '../../../../src/vulns/match/cpe/parse.js';
import { readFirmwareFixture, type WfnStrings, wfnFromStrings } from './vectors.js';

interface Matcher {
  source: WfnStrings;
  target: WfnStrings;
  disjoint: boolean;
  equal: boolean;
  subset: boolean;
  superset: boolean;
}

const goCpe = readFirmwareFixture<{ matcher: Matcher[] }>('cpe', 'go-cpe-vectors.json');
const cpeParser = readFirmwareFixture<{ relations: Record<'part' | 'string', [string, string, string][]> }>(
  'cpe',
  'cpe-parser-vectors.json',
);

describe('NISTIR 7696 name matching', () => {
  it("answers go-cpe's four name relations for each of its pairs", () => {
    const wrong = goCpe.matcher.flatMap((v, i) => {
      const [source, target] = [wfnFromStrings(v.source), wfnFromStrings(v.target)];
      const got = {
        disjoint: isDisjoint(source, target),
        equal: isEqual(source, target),
        subset: isSubset(source, target),
        superset: isSuperset(source, target),
      };
      const want = { disjoint: v.disjoint, equal: v.equal, subset: v.subset, superset: v.superset };
      return JSON.stringify(got) === JSON.stringify(want) ? [] : [{ vector: i, got, want }];
    });
    assert.deepEqual(wrong, []);
    assert.equal(goCpe.matcher.length, 18);
  });

  it("gives CPE-Parser's attribute relations, for parts and for strings with wildcards", () => {
    for (const [source, target, relation] of [...cpeParser.relations.part, ...cpeParser.relations.string])
      assert.equal(compareValues(parseWfnValue(source), parseWfnValue(target)), relation, `${source} vs ${target}`);
  });
});

describe('covers: the criterion as source, the component as target', () => {
  const v = parseWfnValue;
  it('matches ANY in the criterion with anything, NA only with NA, a value with an equal value', () => {
    assert.equal(covers(v('ANY'), v('busybox')), 'yes');
    assert.equal(covers(v('ANY'), v('NA')), 'yes');
    assert.equal(covers(v('NA'), v('NA')), 'yes');
    assert.equal(covers(v('NA'), v('1\\.0')), 'no');
    assert.equal(covers(v('busybox'), v('busybox')), 'yes');
    assert.equal(covers(v('busybox'), v('toybox')), 'no');
    assert.equal(covers(v('1\\.*'), v('1\\.36\\.1')), 'yes');
  });

  it("never reads a component's ANY as a wildcard: it did not say", () => {
    assert.equal(covers(v('busybox'), v('ANY')), 'undecided');
    assert.equal(covers(v('NA'), v('ANY')), 'undecided');
  });
});
