import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { affects, type OsvAffected, type OsvRange } from '../../../src/vulns/match/osv-range.js';
import { packageOfOsv, packageOfPurl } from '../../../src/vulns/match/purl.js';
import { orderOf } from '../../../src/vulns/match/version-order.js';
import { readFixture } from './vectors.js';

const npm = orderOf('npm')!;
const affectedBy = (...ranges: OsvRange[]): OsvAffected => ({ package: { ecosystem: 'npm', name: 'x' }, ranges });
const semver = (...events: OsvRange['events']): OsvRange => ({ type: 'SEMVER', events });
const ecosystem = (...events: OsvRange['events']): OsvRange => ({ type: 'ECOSYSTEM', events });

function assertAffected(affected: OsvAffected, yes: string[], no: string[]): void {
  for (const v of yes) assert.equal(affects(affected, v, npm), true, `${v} is affected`);
  for (const v of no) assert.equal(affects(affected, v, npm), false, `${v} is not affected`);
}

// The examples of the OSV schema (ossf/osv-schema docs/schema.md, "Examples"), read by its
// IsVulnerable pseudocode.
describe('affects, on the OSV schema examples', () => {
  it('"Unfixed vulnerability": introduced 0 affects every version', () => {
    assertAffected(affectedBy(semver({ introduced: '0' })), ['0.0.0', '0.0.1-alpha', '1.0.0', '99.0.0'], []);
  });

  it('"Fixed vulnerability": everything before 1.0.2', () => {
    assertAffected(
      affectedBy(semver({ introduced: '0' }, { fixed: '1.0.2' })),
      ['0.0.1', '1.0.1', '1.0.2-rc.1'],
      ['1.0.2', '1.0.3', '2.0.0'],
    );
  });

  it('"Multiple range": [1.0.0, 1.0.2) and [3.0.0, 3.2.5)', () => {
    const affected = affectedBy(semver({ introduced: '1.0.0' }, { fixed: '1.0.2' }, { introduced: '3.0.0' }, { fixed: '3.2.5' }));
    assertAffected(affected, ['1.0.0', '1.0.1', '3.0.0', '3.2.4'], ['0.9.9', '1.0.2', '2.5.0', '3.0.0-rc.1', '3.2.5', '4.0.0']);
  });

  it('"last_affected vs fixed": last_affected includes 2.1.214, fixed excludes it', () => {
    assertAffected(affectedBy(ecosystem({ introduced: '0' }, { last_affected: '2.1.214' })), ['1.0.0', '2.1.214'], ['2.1.215', '3.0.0']);
    assertAffected(affectedBy(semver({ introduced: '0' }, { fixed: '2.1.214' })), ['1.0.0', '2.1.213'], ['2.1.214', '2.1.215']);
  });
});

describe('affects, on what the pseudocode says beyond the examples', () => {
  it('sorts the events by version before walking them', () => {
    const affected = affectedBy(semver({ fixed: '3.2.5' }, { introduced: '3.0.0' }, { fixed: '1.0.2' }, { introduced: '1.0.0' }));
    assertAffected(affected, ['1.0.1', '3.1.0'], ['0.5.0', '2.0.0', '3.2.5']);
  });

  it('BeforeLimits: with limit events, a version must be below one of them', () => {
    const one = affectedBy(ecosystem({ introduced: '1.0.0' }, { limit: '2.0.0' }));
    assertAffected(one, ['1.0.0', '1.9.9'], ['0.9.0', '2.0.0', '2.5.0']);
    const two = affectedBy(ecosystem({ introduced: '0' }, { fixed: '1.5.0' }, { limit: '1.2.0' }, { limit: '3.0.0' }));
    assertAffected(two, ['1.0.0', '1.4.0'], ['1.5.0', '2.0.0', '3.0.0']);
    // "*" is infinity, as if no limit were given
    assertAffected(affectedBy(ecosystem({ introduced: '1.0.0' }, { limit: '*' })), ['1.0.0', '99.0.0'], ['0.1.0']);
  });

  it('counts a version listed in versions[] whatever the ranges say', () => {
    const affected: OsvAffected = { ...affectedBy(semver({ introduced: '0' }, { fixed: '1.0.0' })), versions: ['2.0.0'] };
    assertAffected(affected, ['0.5.0', '2.0.0'], ['1.0.0', '2.0.1']);
  });

  it('evaluates no GIT range (nor a type it does not know): those count through versions[] only', () => {
    const git: OsvRange = { type: 'GIT', events: [{ introduced: '0' }, { fixed: 'a'.repeat(40) }] };
    assertAffected(affectedBy(git), [], ['1.0.0']);
    assertAffected({ ...affectedBy(git), versions: ['1.0.0'] }, ['1.0.0'], ['1.0.1']);
    assertAffected(affectedBy({ type: 'SOMETHING', events: [{ introduced: '0' }] }), [], ['1.0.0']);
  });

  it('matches a version its order cannot read only by exact membership in versions[], never by a range', () => {
    const affected: OsvAffected = { ...affectedBy(semver({ introduced: '0' })), versions: ['1.0.0.1'] };
    assert.equal(affects(affected, '1.0.0.1', npm), true);
    assert.equal(affects(affected, '1.0', npm), false);
    assert.equal(affects(affected, 'latest', npm), false);
  });

  it('takes nothing from a range holding an event version its order cannot read', () => {
    const unreadable = semver({ introduced: '0' }, { fixed: '2019-09-12' });
    assertAffected(affectedBy(unreadable), [], ['1.0.0', '3000.0.0']);
    // the other ranges of the entry still count
    assertAffected(affectedBy(unreadable, semver({ introduced: '2.0.0' })), ['2.0.0'], ['1.0.0']);
  });

  it('without an order, matches through versions[] only', () => {
    const affected: OsvAffected = { ranges: [ecosystem({ introduced: '0' })], versions: ['1.0'] };
    assert.equal(affects(affected, '1.0', null), true);
    assert.equal(affects(affected, '2.0', null), false);
  });

  it('is not vulnerable where there is no introduced event', () => {
    assertAffected(affectedBy(semver({ fixed: '1.0.0' })), [], ['0.5.0', '1.5.0']);
  });
});

interface ScannerCase {
  test: string;
  affected: OsvAffected[];
  checks: [string, boolean][];
}

// osv-scanner's own IsAffected cases (osv-scalibr's osvlocal vulnerability_test.go), run against
// npm "my-package": an entry counts when packageOfOsv gives it the component's key. osv-scanner
// reads npm versions with a lenient SemVer-like parser ("1" is 1.0.0, "0.0.0.1", "2.0.0rc2") and
// treats an empty version as affected; here a version that is not SemVer 2.0 matches only
// through versions[], and a component without a version is not matchable. A case is expressible
// when its version and every event version of the entries that join are SemVer; the others are
// skipped, and counted so that none goes unseen.
describe("affects, on osv-scanner's IsAffected cases", () => {
  const { cases } = readFixture<{ cases: ScannerCase[] }>('vulns', 'osv-scanner-is-affected.json');
  const readable = (entry: OsvAffected): boolean =>
    (entry.ranges ?? []).every((range) =>
      range.events.every((e) => Object.entries(e).every(([field, v]) => (field === 'introduced' && v === '0') || npm.valid(v!))),
    );
  const results: { test: string; version: string; expected: boolean; got: boolean }[] = [];
  let skipped = 0;
  for (const c of cases) {
    for (const [version, expected] of c.checks) {
      const component = packageOfPurl(`pkg:npm/my-package@${encodeURIComponent(version)}`);
      const joined = 'key' in component ? c.affected.filter((a) => packageOfOsv(a.package!)?.key === component.key) : [];
      if (!('key' in component) || !npm.valid(version) || !joined.every(readable)) {
        skipped++;
        continue;
      }
      const got = joined.some((entry) => affects(entry, version, orderOf(entry.package!.ecosystem)));
      results.push({ test: c.test, version, expected, got });
    }
  }

  it('gives the expected answer on every expressible case', () => {
    assert.deepEqual(
      results.filter((r) => r.got !== r.expected),
      [],
    );
    assert.equal(results.length, 29);
    assert.equal(results.length + skipped, 194);
  });

  it('covers affected and unaffected answers, SEMVER, ECOSYSTEM, versions[] and other ecosystems', () => {
    assert.ok(results.some((r) => r.expected) && results.some((r) => !r.expected));
    const tests = new Set(results.map((r) => r.test));
    for (const name of [
      'AffectsWithEcosystem_SingleAffected',
      'AffectsWithSemver_SingleAffected',
      'OnlyVersions',
      'AffectsWithEcosystem_DifferentEcosystem',
    ])
      assert.ok(tests.has(`TestOSV_IsAffected_${name}`), name);
  });
});
