import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mavenOrder } from '../../../src/vulns/match/orders/maven.js';
import { itFollowsEachGroup } from './vectors.js';

// Maven's ComparableVersion (Maven 4 line), against apache/maven's own ComparableVersionTest.
describe('Maven order (ComparableVersion)', () => {
  const checks = itFollowsEachGroup(mavenOrder, 'maven-comparable-version.json');

  it('ran every comparison of ComparableVersionTest that does not test an API', () => assert.equal(checks, 1357));

  it('reads any non-empty string, but not the empty one', () => {
    assert.equal(mavenOrder.valid('whatever-1.x'), true);
    assert.equal(mavenOrder.valid(''), false);
  });

  it('refuses what Java cannot parse: a digit run cut by a character outside the BMP', () => {
    // Java reads the pair as one code point but cuts the number before its low surrogate
    assert.equal(mavenOrder.valid('1\u{1D7E4}'), false);
    assert.equal(mavenOrder.valid('a\u{1D7E4}'), true);
  });
});
