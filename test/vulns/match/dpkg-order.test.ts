import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dpkgOrder } from '../../../src/vulns/match/orders/dpkg.js';
import { itFollowsEachGroup } from './vectors.js';

// dpkg's order, against dpkg's own t-version.c and Dpkg_Version.t.
describe('dpkg order (Debian, Ubuntu)', () => {
  const checks = itFollowsEachGroup(dpkgOrder, 'dpkg-version.json');

  it('ran every vector taken from t-version.c and Dpkg_Version.t', () => assert.equal(checks, 179));

  it('reads the epoch as strtol does, a sign included, and refuses one beyond an int', () => {
    assert.equal(dpkgOrder.valid('+1:2.0'), true);
    assert.equal(dpkgOrder.compare('+1:2.0', '1:2.0'), 0);
    assert.equal(dpkgOrder.valid('2147483648:1.0'), false);
    assert.equal(dpkgOrder.valid('2147483647:1.0'), true);
  });
});
