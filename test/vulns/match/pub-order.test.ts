import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pubOrder } from '../../../src/vulns/match/orders/pub.js';
import { semverOrder } from '../../../src/vulns/match/orders/semver.js';
import { itFollowsEachGroup } from './vectors.js';

// pub_semver's Version, against its own version_test.dart.
describe('Pub order (pub_semver)', () => {
  const checks = itFollowsEachGroup(pubOrder, 'pub-semver.json');

  it('ran every vector taken from version_test.dart', () => assert.equal(checks, 146));

  it('sorts build numbers, which npm semver ignores: why Pub has an order of its own', () => {
    assert.equal(pubOrder.compare('1.0.0', '1.0.0+1'), -1);
    assert.equal(pubOrder.compare('1.0.0+1', '1.0.0+2'), -1);
    assert.equal(semverOrder.compare('1.0.0', '1.0.0+1'), 0);
  });
});
