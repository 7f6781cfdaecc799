import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nugetOrder } from '../../../src/vulns/match/orders/nuget.js';
import { itFollowsEachGroup } from './vectors.js';

// NuGetVersion and VersionComparer.Default, against NuGet.Client's NuGet.Versioning tests.
describe('NuGet order', () => {
  const checks = itFollowsEachGroup(nugetOrder, 'nuget-versioning.json');

  it('ran every vector taken from NuGet.Versioning.Test', () => assert.equal(checks, 184));

  it('refuses a leading "v", as NuGetVersion.TryParse does', () => {
    assert.equal(nugetOrder.valid('1.0.0'), true);
    assert.equal(nugetOrder.valid('v1.0.0'), false);
  });

  it("reads a label as a number where C#'s int.TryParse does, a minus sign included", () => {
    assert.equal(nugetOrder.compare('1.0.0--1', '1.0.0-0'), -1);
    // beyond an int, digits are text: after every number, and compared as text with other text
    assert.equal(nugetOrder.compare('1.0.0-2147483648', '1.0.0-2147483647'), 1);
    assert.equal(nugetOrder.compare('1.0.0-2147483648', '1.0.0-A'), -1);
  });

  it('allows whitespace around each number, as its ParseSection does (the tests only show where it may not be)', () => {
    assert.equal(nugetOrder.valid('1 .2. 3'), true);
    assert.equal(nugetOrder.compare('1 .2. 3', '1.2.3'), 0);
  });
});
