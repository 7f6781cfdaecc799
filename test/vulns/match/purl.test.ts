import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type MatchablePackage, packageOfOsv, packageOfPurl } from '../../../src/vulns/match/purl.js';

function matchable(purl: string): MatchablePackage {
  const found = packageOfPurl(purl);
  assert.ok('key' in found, `${purl} is matchable, got ${JSON.stringify(found)}`);
  return found;
}

const ecosystemOf = (purl: string): string | null => {
  const found = packageOfPurl(purl);
  return 'key' in found ? found.ecosystem : null;
};

describe('packageOfPurl', () => {
  it('normalises each language type as the purl specification says', () => {
    const cases: [string, string, string][] = [
      // npm: scope and name lower-cased
      ['pkg:npm/%40Babel/Core@7.0.0', 'npm', '@babel/core'],
      ['pkg:npm/JSONStream@1.3.5', 'npm', 'jsonstream'],
      // PyPI: lower-cased, runs of "_", "." and "-" become one "-"
      ['pkg:pypi/Django_Rest.Framework@3.0', 'PyPI', 'django-rest-framework'],
      ['pkg:pypi/zope..interface__x@5', 'PyPI', 'zope-interface-x'],
      // Maven: group:artifact, case kept; qualifiers do not name another package
      ['pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar&classifier=sources', 'Maven', 'org.apache.logging.log4j:log4j-core'],
      // Go: the whole module path, case kept (github.com/Sirupsen and github.com/sirupsen are two modules)
      ['pkg:golang/github.com/Sirupsen/logrus@v1.0.0#hooks/syslog', 'Go', 'github.com/Sirupsen/logrus'],
      ['pkg:golang/stdlib@1.22.5', 'Go', 'stdlib'],
      ['pkg:cargo/serde_json@1.0.100', 'crates.io', 'serde_json'],
      // NuGet and Composer: case-insensitive names, lower-cased
      ['pkg:nuget/Newtonsoft.Json@13.0.1', 'NuGet', 'newtonsoft.json'],
      ['pkg:composer/Laravel/Framework@v10.0.0', 'Packagist', 'laravel/framework'],
      ['pkg:gem/rails@7.0.4?platform=ruby', 'RubyGems', 'rails'],
      // Pub: lower-cased, "-" as "_"
      ['pkg:pub/Flutter-Secure@1.0.0', 'Pub', 'flutter_secure'],
      ['pkg:hex/Phoenix@1.7.0', 'Hex', 'phoenix'],
    ];
    for (const [purl, ecosystem, name] of cases) {
      const found = matchable(purl);
      assert.deepEqual([found.ecosystem, found.name, found.key], [ecosystem, name, `${ecosystem}/${name}`], purl);
    }
  });

  it('keeps the version as the purl writes it', () => {
    assert.equal(matchable('pkg:golang/github.com/gin-gonic/gin@v1.9.0').version, 'v1.9.0');
    assert.equal(matchable('pkg:deb/debian/attr@1:2.4.47-2%2Bb1?arch=amd64&distro=debian-11').version, '1:2.4.47-2+b1');
  });

  it('reads the Alpine release from the distro qualifier in the forms SBOM tools write', () => {
    for (const distro of ['alpine-3.17', 'alpine-3.17.2', '3.17.2', '3.17', 'v3.17', 'Alpine-3.17.0'])
      assert.equal(ecosystemOf(`pkg:apk/alpine/busybox@1.36.1-r0?arch=x86_64&distro=${distro}`), 'Alpine:v3.17', distro);
    assert.equal(ecosystemOf('pkg:apk/alpine/busybox@1.36.1-r0?distro=alpine-3.9.4'), 'Alpine:v3.9');
  });

  it('reads the Debian release from the distro qualifier, by number or by codename', () => {
    for (const distro of ['debian-11', 'debian-11.6', '11', '11.6', 'bullseye', 'debian-bullseye'])
      assert.equal(ecosystemOf(`pkg:deb/debian/curl@7.74.0-1.3%2Bdeb11u7?arch=amd64&distro=${distro}`), 'Debian:11', distro);
    assert.equal(ecosystemOf('pkg:deb/debian/curl@7.88.1-10?distro=bookworm'), 'Debian:12');
    assert.equal(ecosystemOf('pkg:deb/debian/curl@7.26.0-1?distro=wheezy'), 'Debian:7');
  });

  it('reads the Ubuntu release, with the :LTS suffix OSV gives long-term releases', () => {
    for (const distro of ['ubuntu-22.04', '22.04', '22.04.3', 'jammy', 'ubuntu-jammy'])
      assert.equal(ecosystemOf(`pkg:deb/ubuntu/openssl@3.0.2-0ubuntu1.10?distro=${distro}`), 'Ubuntu:22.04:LTS', distro);
    assert.equal(ecosystemOf('pkg:deb/ubuntu/openssl@3.0.10-1ubuntu2?distro=ubuntu-23.10'), 'Ubuntu:23.10');
    assert.equal(ecosystemOf('pkg:deb/ubuntu/openssl@3.0.10-1ubuntu2?distro=mantic'), 'Ubuntu:23.10');
    assert.equal(ecosystemOf('pkg:deb/ubuntu/bash@3.1-2ubuntu10?distro=ubuntu-6.06'), 'Ubuntu:6.06:LTS');
    assert.equal(ecosystemOf('pkg:deb/ubuntu/openssl@1.0.1f-1ubuntu2?distro=trusty'), 'Ubuntu:14.04:LTS');
  });

  it('leaves a distribution package uncovered when its release is not said exactly', () => {
    for (const purl of [
      'pkg:deb/debian/curl@7.88.1-10', // no distro: which Debian?
      'pkg:deb/debian/curl@7.88.1-10?distro=sid',
      'pkg:deb/debian/curl@1.0-1?distro=debian-6.0', // before wheezy releases were "6.0", not "6"
      'pkg:deb/debian/curl@1.0-1?distro=ubuntu-22.04', // vendor and distro disagree
      'pkg:deb/ubuntu/curl@1.0-1?distro=ubuntu-22.05', // no such release
      'pkg:deb/raspbian/curl@1.0-1?distro=raspbian-11',
      'pkg:apk/alpine/busybox@1.36.1-r0?distro=edge',
      'pkg:apk/alpine/busybox@1.36.1-r0',
      'pkg:apk/wolfi/busybox@1.36.1-r0?distro=wolfi-20230201',
      'pkg:apk/debian/curl@1.0-r0?distro=debian-11',
    ])
      assert.deepEqual(packageOfPurl(purl), { unmatchable: 'ecosystem_not_covered' }, purl);
  });

  it("matches a distribution package by the binary package's own name, and takes an epoch qualifier", () => {
    const libssl = matchable('pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12&upstream=openssl');
    assert.equal(libssl.key, 'Debian:12/libssl3');
    assert.equal(matchable('pkg:deb/debian/attr@2.4.47-2?distro=debian-11&epoch=1').version, '1:2.4.47-2');
    assert.equal(matchable('pkg:deb/debian/attr@1:2.4.47-2?distro=debian-11&epoch=1').version, '1:2.4.47-2');
  });

  it('says why a component cannot be matched', () => {
    const cases: [string | null | undefined, string][] = [
      [null, 'no_purl'],
      [undefined, 'no_purl'],
      ['', 'no_purl'],
      ['   ', 'no_purl'],
      ['lodash@4.17.21', 'invalid_purl'],
      ['pkg:npm', 'invalid_purl'],
      ['pkg:maven/log4j-core@2.14.1', 'invalid_purl'], // Maven needs its group
      ['pkg:pub/flutter.secure@1.0.0', 'invalid_purl'], // Pub names are [a-z0-9_]
      ['pkg:rpm/redhat/openssl@1.1.1k-7.el8_6?arch=x86_64', 'ecosystem_not_covered'],
      ['pkg:github/actions/checkout@v4', 'ecosystem_not_covered'],
      ['pkg:generic/openssl@3.0.0', 'ecosystem_not_covered'],
    ];
    for (const [purl, reason] of cases) assert.deepEqual(packageOfPurl(purl), { unmatchable: reason }, String(purl));
  });

  it('names the ecosystem of a purl without a version (coverage asks whether any advisory of it is held)', () => {
    assert.deepEqual(packageOfPurl('pkg:npm/lodash'), { unmatchable: 'no_version', ecosystem: 'npm' });
    assert.deepEqual(packageOfPurl('pkg:pypi/django'), { unmatchable: 'no_version', ecosystem: 'PyPI' });
    assert.deepEqual(packageOfPurl('pkg:deb/debian/openssl?distro=debian-11'), { unmatchable: 'no_version', ecosystem: 'Debian:11' });
  });
});

describe('packageOfOsv', () => {
  it('gives an OSV package the same key as the purl of the same package', () => {
    const cases: [{ ecosystem: string; name: string; purl?: string }, string][] = [
      [{ ecosystem: 'npm', name: '@babel/core' }, 'pkg:npm/%40babel/core@7.0.0'],
      [{ ecosystem: 'npm', name: 'JSONStream' }, 'pkg:npm/JSONStream@1.3.5'],
      [{ ecosystem: 'PyPI', name: 'Django' }, 'pkg:pypi/django@4.2'],
      [{ ecosystem: 'PyPI', name: 'jw.util', purl: 'pkg:pypi/jw-util' }, 'pkg:pypi/jw.util@2.2'],
      [{ ecosystem: 'PyPI', name: 'zope.interface' }, 'pkg:pypi/zope-interface@5.0'],
      [{ ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core' }, 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1'],
      [{ ecosystem: 'Maven:https://maven.google.com', name: 'androidx.core:core' }, 'pkg:maven/androidx.core/core@1.0.0'],
      [{ ecosystem: 'Go', name: 'github.com/Sirupsen/logrus' }, 'pkg:golang/github.com/Sirupsen/logrus@v1.0.0'],
      [{ ecosystem: 'Go', name: 'stdlib' }, 'pkg:golang/stdlib@v1.22.5'],
      [{ ecosystem: 'crates.io', name: 'serde_json', purl: 'pkg:cargo/serde_json' }, 'pkg:cargo/serde_json@1.0.0'],
      [{ ecosystem: 'NuGet', name: 'Newtonsoft.Json' }, 'pkg:nuget/newtonsoft.json@13.0.1'],
      [{ ecosystem: 'RubyGems', name: 'rails' }, 'pkg:gem/rails@7.0.4'],
      [{ ecosystem: 'Packagist', name: 'Laravel/Framework' }, 'pkg:composer/laravel/framework@10.0.0'],
      [{ ecosystem: 'Pub', name: 'flutter_secure' }, 'pkg:pub/flutter-secure@1.0.0'],
      [{ ecosystem: 'Hex', name: 'phoenix' }, 'pkg:hex/phoenix@1.7.0'],
      // a distribution's record names its release in the ecosystem, even when its purl does not
      [
        { ecosystem: 'Debian:11', name: 'openssl', purl: 'pkg:deb/debian/openssl?arch=source' },
        'pkg:deb/debian/openssl@1.1.1n-0%2Bdeb11u5?distro=debian-11',
      ],
      [{ ecosystem: 'Ubuntu:22.04:LTS', name: 'openssl' }, 'pkg:deb/ubuntu/openssl@3.0.2-0ubuntu1.10?distro=jammy'],
      [{ ecosystem: 'Alpine:v3.17', name: 'openssl' }, 'pkg:apk/alpine/openssl@3.0.8-r0?distro=alpine-3.17.2'],
    ];
    for (const [osv, purl] of cases) assert.equal(packageOfOsv(osv)?.key, matchable(purl).key, `${JSON.stringify(osv)} and ${purl}`);
  });

  it('keeps apart what is not the same package', () => {
    const apart: [{ ecosystem: string; name: string }, string][] = [
      // osv-scanner's AffectsWithEcosystem_DifferentEcosystem: a PyPI advisory is not about an npm package
      [{ ecosystem: 'PyPI', name: 'my-package' }, 'pkg:npm/my-package@1.0.0'],
      [{ ecosystem: 'Go', name: 'github.com/sirupsen/logrus' }, 'pkg:golang/github.com/Sirupsen/logrus@v1.0.0'],
      [{ ecosystem: 'Debian:12', name: 'openssl' }, 'pkg:deb/debian/openssl@1.1.1n-0?distro=debian-11'],
      // Ubuntu Pro's fixes are for Pro subscribers: a separate ecosystem
      [{ ecosystem: 'Ubuntu:Pro:22.04:LTS', name: 'openssl' }, 'pkg:deb/ubuntu/openssl@3.0.2-0ubuntu1.10?distro=jammy'],
      [{ ecosystem: 'Maven', name: 'org.example:a' }, 'pkg:maven/org.example/A@1.0'],
    ];
    for (const [osv, purl] of apart) assert.notEqual(packageOfOsv(osv)?.key, matchable(purl).key, `${JSON.stringify(osv)} and ${purl}`);
  });

  it('reads the purl first, and falls back on ecosystem and name when the purl says nothing usable', () => {
    assert.equal(packageOfOsv({ ecosystem: 'PyPI', name: 'Wrong.Name', purl: 'pkg:pypi/right-name' })?.key, 'PyPI/right-name');
    assert.equal(packageOfOsv({ ecosystem: 'PyPI', name: 'right_name', purl: 'not a purl' })?.key, 'PyPI/right-name');
    assert.equal(packageOfOsv({ ecosystem: 'PyPI', name: 'right_name', purl: 'pkg:generic/x' })?.key, 'PyPI/right-name');
  });

  it('gives no key to packages nothing here can join', () => {
    for (const pkg of [
      { ecosystem: 'Wolfi', name: 'openssl' },
      { ecosystem: 'GIT', name: 'github.com/owner/repo' },
      { ecosystem: 'Red Hat:rhel_aus:8.4::appstream', name: 'openssl' },
      { ecosystem: 'Debian', name: 'openssl' }, // a release-scoped ecosystem without its release
    ])
      assert.equal(packageOfOsv(pkg), null, JSON.stringify(pkg));
  });
});
