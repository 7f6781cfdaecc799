import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { composerOrder, normaliseComposerVersion } from '../../../src/vulns/match/orders/composer.js';
import { phpVersionCompare } from '../../../src/vulns/match/orders/php-version-compare.js';
import { disagreements, readFixture, type VectorGroup } from './vectors.js';

interface ComposerFixture {
  normalise: [string, string, string][];
  failing: [string, string][];
  accepted: [string, string][];
  comparisons: [string, string, string, boolean][];
  sorted: string[][];
}

const OPERATORS: Record<string, (c: number) => boolean> = {
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '==': (c) => c === 0,
  '=': (c) => c === 0,
  '!=': (c) => c !== 0,
  '<>': (c) => c !== 0,
};

// Composer's order: composer/semver's own VersionParser, Comparator and Semver tests, and PHP's
// version_compare against php-src's version_compare.phpt.
describe('Composer order (Packagist)', () => {
  const fixture = readFixture<ComposerFixture>('versions', 'composer-semver.json');

  it('normalises as VersionParserTest expects', () => {
    const wrong = fixture.normalise.filter(([, input, expected]) => normaliseComposerVersion(input) !== expected);
    assert.deepEqual(wrong, []);
    assert.equal(fixture.normalise.length, 73);
  });

  it('rejects what VersionParserTest expects normalize to reject, and accepts the rest', () => {
    assert.deepEqual(
      fixture.failing.filter(([, input]) => normaliseComposerVersion(input) !== null),
      [],
    );
    assert.deepEqual(
      fixture.accepted.filter(([, input]) => normaliseComposerVersion(input) === null),
      [],
    );
    assert.equal(fixture.failing.length + fixture.accepted.length, 46);
  });

  it('compares as ComparatorTest expects', () => {
    const wrong = fixture.comparisons.filter(([a, op, b, expected]) => OPERATORS[op]!(composerOrder.compare(a, b)) !== expected);
    assert.deepEqual(wrong, []);
    assert.equal(fixture.comparisons.length, 48);
  });

  it('sorts as SemverTest expects', () => assert.deepEqual(disagreements(composerOrder, { sorted: fixture.sorted }), []));

  it('leaves branches out of the order', () => {
    assert.equal(normaliseComposerVersion('dev-main'), 'dev-main');
    assert.equal(composerOrder.valid('dev-main'), false);
    assert.equal(composerOrder.valid('1.x-dev'), true);
  });

  it("reads 1.0 and 1.0.0 as one version, where PHP's version_compare alone would not", () => {
    assert.equal(composerOrder.compare('1.0', '1.0.0'), 0);
    assert.equal(phpVersionCompare('1.0', '1.0.0'), -1);
  });

  it('canonicalises as the PHP manual describes: _, - and + become dots, and dots go around non-numbers', () => {
    assert.equal(phpVersionCompare('4.3.2RC1', '4.3.2.RC.1'), 0);
    assert.equal(phpVersionCompare('1_0+2', '1.0.2'), 0);
    assert.equal(phpVersionCompare('1-0', '1.0'), 0);
  });

  it("implements version_compare as php-src's version_compare.phpt expects", () => {
    const { tests } = readFixture<{ tests: Record<string, VectorGroup> }>('versions', 'php-version-compare.json');
    const rows = Object.values(tests).flatMap((group) => group.compare ?? []);
    assert.deepEqual(
      rows.filter(([a, b, r]) => phpVersionCompare(a, b) !== r),
      [],
    );
    assert.equal(rows.length, 53);
  });
});
