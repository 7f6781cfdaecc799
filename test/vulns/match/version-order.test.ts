import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apkOrder } from '../../../src/vulns/match/orders/apk.js';
import { composerOrder } from '../../../src/vulns/match/orders/composer.js';
import { dpkgOrder } from '../../../src/vulns/match/orders/dpkg.js';
import { mavenOrder } from '../../../src/vulns/match/orders/maven.js';
import { nugetOrder } from '../../../src/vulns/match/orders/nuget.js';
import { pep440Order } from '../../../src/vulns/match/orders/pep440.js';
import { pubOrder } from '../../../src/vulns/match/orders/pub.js';
import { rubyGemsOrder } from '../../../src/vulns/match/orders/rubygems.js';
import { semverOrder } from '../../../src/vulns/match/orders/semver.js';
import { COVERED_ECOSYSTEMS } from '../../../src/vulns/match/package-key.js';
import { orderOf, type VersionOrder } from '../../../src/vulns/match/version-order.js';

/** Asserts that every entry sorts strictly before every later one. */
function assertAscending(order: VersionOrder, versions: string[]): void {
  for (const v of versions) assert.ok(order.valid(v), `${v} is valid`);
  versions.forEach((a, i) => {
    for (const b of versions.slice(i + 1)) {
      assert.equal(order.compare(a, b), -1, `${a} < ${b}`);
      assert.equal(order.compare(b, a), 1, `${b} > ${a}`);
    }
  });
}

describe('orderOf', () => {
  it("gives each covered ecosystem its own tools' order, a release-scoped one its base's", () => {
    const expected: [string, VersionOrder][] = [
      ['npm', semverOrder],
      ['crates.io', semverOrder],
      ['Hex', semverOrder],
      ['Go', semverOrder],
      ['Pub', pubOrder],
      ['PyPI', pep440Order],
      ['Maven', mavenOrder],
      ['Maven:https://maven.google.com', mavenOrder],
      ['NuGet', nugetOrder],
      ['RubyGems', rubyGemsOrder],
      ['Packagist', composerOrder],
      ['Debian:11', dpkgOrder],
      ['Ubuntu:22.04:LTS', dpkgOrder],
      ['Ubuntu:Pro:18.04:LTS', dpkgOrder],
      ['Alpine:v3.17', apkOrder],
    ];
    for (const [ecosystem, order] of expected) assert.equal(orderOf(ecosystem), order, ecosystem);
  });

  it('has an order for every ecosystem a purl can be matched to', () => {
    for (const ecosystem of COVERED_ECOSYSTEMS) assert.notEqual(orderOf(ecosystem), null, ecosystem);
  });

  it('knows no order for other ecosystems, nor for names an object inherits', () => {
    for (const ecosystem of ['GIT', 'Wolfi', 'Red Hat:rhel_aus:8.4::appstream', 'OSS-Fuzz', '', 'constructor', 'toString'])
      assert.equal(orderOf(ecosystem), null, ecosystem);
  });
});

describe('SemVer orders (npm, crates.io, Hex, Go)', () => {
  it('follows the precedence example of SemVer 2.0.0 section 11', () => {
    assertAscending(semverOrder, [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '2.0.0',
      '2.1.0',
      '2.1.1',
    ]);
  });

  it('ignores build metadata, and refuses what is not SemVer', () => {
    assert.equal(semverOrder.compare('1.0.0+build.1', '1.0.0'), 0);
    for (const v of ['1', '1.0', '0.0.0.1', '2.0.0rc2', '01.2.3', 'go1.21']) assert.equal(semverOrder.valid(v), false, v);
  });

  it('reads Go module versions with and without their "v"', () => {
    const go = orderOf('Go')!;
    assert.equal(go.compare('v1.2.3', '1.2.3'), 0);
    // pseudo-versions: v0.0.0-<time>-<commit> before any tag, vX.Y.(Z+1)-0.<time>-<commit> after vX.Y.Z
    assertAscending(go, [
      'v0.0.0-20160722212129-ac0cc4484ad4',
      '0.0.0-20200131131040-063a3fb69896',
      'v0.1.0',
      'v1.2.3',
      'v1.2.4-0.20191109021931-daa7c04131f5',
      'v1.2.4',
      'v2.0.0-rc.1+incompatible',
      'v2.0.0+incompatible',
      'v2.0.1-0.20190802080134-634605d06e73+incompatible',
    ]);
    // +incompatible is build metadata: the same version as without it
    assert.equal(go.compare('2.7.0-rc.0+incompatible', 'v2.7.0-rc.0'), 0);
  });
});

describe('PEP 440 order (PyPI)', () => {
  it("follows PEP 440's own example of the ordering of every suffix", () => {
    // PEP 440, "Summary of permitted suffixes and relative ordering"
    assertAscending(pep440Order, [
      '1.dev0',
      '1.0.dev456',
      '1.0a1',
      '1.0a2.dev456',
      '1.0a12.dev456',
      '1.0a12',
      '1.0b1.dev456',
      '1.0b2',
      '1.0b2.post345.dev456',
      '1.0b2.post345',
      '1.0rc1.dev456',
      '1.0rc1',
      '1.0',
      '1.0+abc.5',
      '1.0+abc.7',
      '1.0+5',
      '1.0.post456.dev34',
      '1.0.post456',
      '1.0.15',
      '1.1.dev1',
    ]);
  });

  it('reads normalised spellings as the same version, and refuses legacy versions', () => {
    assert.equal(pep440Order.compare('1.0', '1.0.0'), 0);
    assert.equal(pep440Order.compare('1.0.0c2', '1.0.0rc2'), 0);
    assert.equal(pep440Order.compare('1!0.1', '2.0'), 1);
    for (const v of ['0.9-doduo', '2013-01-21T20:33:09+0100', '2019-09-12', '0.2.0-n653']) assert.equal(pep440Order.valid(v), false, v);
  });
});
