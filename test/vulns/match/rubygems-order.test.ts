import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rubyGemsOrder } from '../../../src/vulns/match/orders/rubygems.js';
import { itFollowsEachGroup } from './vectors.js';

// Gem::Version, against rubygems' own test_gem_version.rb.
describe('RubyGems order (Gem::Version)', () => {
  const checks = itFollowsEachGroup(rubyGemsOrder, 'rubygems-version.json');

  it('ran every vector taken from test_gem_version.rb', () => assert.equal(checks, 55));
});
