import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { affects, type OsvAffected } from '../../../src/vulns/match/osv-range.js';
import { packageOfOsv, packageOfPurl } from '../../../src/vulns/match/purl.js';
import { orderOf } from '../../../src/vulns/match/version-order.js';
import { FIXTURES, readFixture } from './vectors.js';

interface OsvRecord {
  id: string;
  withdrawn?: string;
  affected?: OsvAffected[];
}

const record = (id: string): OsvRecord => readFixture<OsvRecord>('vulns', 'osv', `${id}.json`);

/** Whether a record affects the component a purl names: its entries for the same key, by affects(). */
function recordAffects(id: string, purl: string): boolean {
  const component = packageOfPurl(purl);
  assert.ok('key' in component && component.version !== null, `${purl} is matchable`);
  return (record(id).affected ?? [])
    .filter((entry) => entry.package !== undefined && packageOfOsv(entry.package)?.key === component.key)
    .some((entry) => affects(entry, component.version!, orderOf(entry.package!.ecosystem)));
}

// Real records from the Go vulnerability database and the Python Packaging Advisory Database,
// copied unchanged into test/fixtures/vulns/osv/. Each expectation says why, from the record.
const CASES: [id: string, purl: string, affected: boolean, why: string][] = [
  // Go: SEMVER ranges over pseudo-versions, prereleases and +incompatible
  [
    'GO-2020-0004',
    'pkg:golang/github.com/nanobox-io/golang-nanoauth@v0.0.0-20180101000000-aaaaaaaaaaaa',
    true,
    'a 2018 pseudo-version lies between introduced (2016) and fixed (2020)',
  ],
  [
    'GO-2020-0004',
    'pkg:golang/github.com/nanobox-io/golang-nanoauth@v0.0.0-20160101000000-aaaaaaaaaaaa',
    false,
    'a pseudo-version older than introduced 0.0.0-20160722212129',
  ],
  [
    'GO-2020-0004',
    'pkg:golang/github.com/nanobox-io/golang-nanoauth@v0.0.0-20200131131040-063a3fb69896',
    false,
    'the fixed pseudo-version itself',
  ],
  [
    'GO-2020-0004',
    'pkg:golang/github.com/nanobox-io/golang-nanoauth@v0.1.0',
    false,
    'a release sorts after every v0.0.0 pseudo-version, so after the fix',
  ],
  [
    'GO-2021-0072',
    'pkg:golang/github.com/docker/distribution@v2.6.2+incompatible',
    true,
    'below fixed 2.7.0-rc.0; +incompatible is build metadata',
  ],
  ['GO-2021-0072', 'pkg:golang/github.com/docker/distribution@v2.7.0-rc.0+incompatible', false, 'the fixed version'],
  ['GO-2021-0072', 'pkg:golang/github.com/docker/distribution@v2.7.1+incompatible', false, 'after the fix'],
  ['GO-2022-0344', 'pkg:golang/github.com/containerd/containerd@v1.4.12', true, 'in [0, 1.4.13)'],
  ['GO-2022-0344', 'pkg:golang/github.com/containerd/containerd@v1.4.13', false, 'fixed in 1.4.13, and before introduced 1.5.0'],
  ['GO-2022-0344', 'pkg:golang/github.com/containerd/containerd@v1.5.9', true, 'in [1.5.0, 1.5.10)'],
  ['GO-2022-0344', 'pkg:golang/github.com/containerd/containerd@v1.6.0', true, 'in [1.6.0, 1.6.1)'],
  ['GO-2022-0344', 'pkg:golang/github.com/containerd/containerd@v1.6.1', false, 'fixed in 1.6.1'],
  ['GO-2023-1987', 'pkg:golang/stdlib@v1.19.11', true, 'stdlib in [0, 1.19.12)'],
  ['GO-2023-1987', 'pkg:golang/stdlib@1.19.12', false, 'the fix of the 1.19 line, written without "v" as Trivy does'],
  [
    'GO-2023-1987',
    'pkg:golang/stdlib@v1.20.0',
    true,
    'introduced 1.20.0-0 is the first prerelease of 1.20.0, so 1.20.0 is in [1.20.0-0, 1.20.7)',
  ],
  ['GO-2023-1987', 'pkg:golang/stdlib@v1.21.0-rc.3', true, 'in [1.21.0-0, 1.21.0-rc.4)'],
  ['GO-2023-1987', 'pkg:golang/stdlib@v1.21.0', false, 'after fixed 1.21.0-rc.4'],
  [
    'GO-2020-0017',
    'pkg:golang/github.com/dgrijalva/jwt-go@v3.2.0+incompatible',
    true,
    'introduced at a 2015 pseudo-version and never fixed',
  ],
  [
    'GO-2020-0017',
    'pkg:golang/github.com/dgrijalva/jwt-go/v4@v4.0.0-preview1',
    false,
    'the /v4 module is its own package, fixed in 4.0.0-preview1',
  ],
  [
    'GO-2021-0090',
    'pkg:golang/github.com/tendermint/tendermint@v0.34.0-dev1',
    true,
    'dev1 sorts before the fixed pseudo-version 0.34.0-dev1.0.20200702134149-…, which extends it',
  ],
  [
    'GO-2021-0090',
    'pkg:golang/github.com/tendermint/tendermint@v0.34.0',
    false,
    'a release sorts after all its prereleases, so after the fix',
  ],
  ['GO-2021-0090', 'pkg:golang/github.com/tendermint/tendermint@v0.32.9', false, 'before introduced 0.33.0'],
  ['GO-2021-0066', 'pkg:golang/k8s.io/kubernetes@v1.20.0-alpha.0', true, 'before fixed 1.20.0-alpha.1'],
  ['GO-2021-0066', 'pkg:golang/k8s.io/kubernetes@v1.20.0', false, 'after fixed 1.20.0-alpha.1'],
  ['GO-2020-0032', 'pkg:golang/goa.design/goa/v3@v3.0.8', true, 'the goa.design/goa/v3 entry: [0, 3.0.9)'],
  ['GO-2020-0032', 'pkg:golang/goa.design/goa@v1.4.2', true, 'the goa.design/goa entry: [0, 1.4.3)'],
  ['GO-2020-0032', 'pkg:golang/goa.design/goa/v3@v3.0.9', false, 'fixed for v3; the entries of the other two modules do not join it'],
  [
    'GO-2024-2442',
    'pkg:golang/github.com/gravitational/teleport@v4.4.0+incompatible',
    true,
    'introduced 0, never fixed: the entry affects it (the record is withdrawn, see below)',
  ],
  // PyPI: ECOSYSTEM ranges under PEP 440
  ['PYSEC-2022-42969', 'pkg:pypi/py@1.11.0', true, 'last_affected 1.11.0 is inclusive'],
  ['PYSEC-2022-42969', 'pkg:pypi/py@1.11.1', false, 'above last_affected and not in versions[]'],
  ['PYSEC-2022-42969', 'pkg:pypi/py@1.4.32.dev1', true, 'a dev release below last_affected'],
  ['PYSEC-2012-1', 'pkg:pypi/Beaker@1.6.5', true, 'below fixed 1.6.5.post1'],
  ['PYSEC-2012-1', 'pkg:pypi/beaker@1.6.5.post1', false, 'the post-release that fixed it; the GIT range is not evaluated'],
  ['PYSEC-2012-1', 'pkg:pypi/beaker@1.3.1dev', true, '1.3.1dev is 1.3.1.dev0, below the fix'],
  ['PYSEC-2020-108', 'pkg:pypi/scikit-learn@0.23.2', true, 'below fixed 0.24.dev0'],
  [
    'PYSEC-2020-108',
    'pkg:pypi/scikit_learn@0.24rc1',
    false,
    'a dev release sorts before the pre-releases of its version: 0.24rc1 is after 0.24.dev0',
  ],
  ['PYSEC-2020-108', 'pkg:pypi/scikit-learn@0.22rc2.post1', true, 'a post-release of a release candidate, below the fix'],
  ['PYSEC-2009-10', 'pkg:pypi/ZODB3@3.8.3b1', true, 'a beta of 3.8.3 is inside [3.8, 3.8.3)'],
  ['PYSEC-2009-10', 'pkg:pypi/zodb3@3.8.3', false, 'fixed in 3.8.3, before introduced 3.9a0'],
  ['PYSEC-2009-10', 'pkg:pypi/zodb3@3.9.0a1', true, 'in [3.9a0, 3.9.0c2)'],
  ['PYSEC-2009-10', 'pkg:pypi/zodb3@3.9.0rc2', false, 'fixed 3.9.0c2 is 3.9.0rc2'],
  ['PYSEC-2009-10', 'pkg:pypi/zodb3@3.7.0', false, 'before introduced 3.8'],
  ['PYSEC-2024-1', 'pkg:pypi/gratient@0.5', true, 'listed in versions[], the only thing the record gives'],
  ['PYSEC-2024-1', 'pkg:pypi/gratient@0.5.0', false, 'versions[] membership is exact: 0.5.0 is not the string 0.5'],
  ['PYSEC-2019-130', 'pkg:pypi/typed-ast@1.3.1', true, 'in the ECOSYSTEM range [0, 1.3.2)'],
  ['PYSEC-2019-130', 'pkg:pypi/typed_ast@1.4.0', false, 'after the fix; the two GIT ranges are not evaluated'],
  ['PYSEC-2012-11', 'pkg:pypi/pyfribidi@0.10.1', true, 'below fixed 0.11.0'],
  ['PYSEC-2012-11', 'pkg:pypi/pyfribidi@0.11.0', false, 'the fix'],
  ['PYSEC-2008-8', 'pkg:pypi/paramiko@0.9-doduo', true, 'not a PEP 440 version, but listed in versions[]'],
  ['PYSEC-2008-8', 'pkg:pypi/paramiko@0.9-zubat', false, 'not a PEP 440 version and not listed: never guessed into the range'],
  ['PYSEC-2008-8', 'pkg:pypi/paramiko@1.7.1', true, 'below fixed 1.7.2'],
  ['PYSEC-2020-341', 'pkg:pypi/jw.util@2.2', true, 'the record names jw.util with purl pkg:pypi/jw-util: one key; 2.2 is below fixed 2.3'],
  ['PYSEC-2020-341', 'pkg:pypi/jw-util@2.3', false, 'the fix'],
  [
    'PYSEC-2019-125',
    'pkg:pypi/steam@0.9.1',
    false,
    'fixed "2019-09-12" is not PEP 440, so the range says nothing; osv-scanner reads it as a legacy version below every PEP 440 one, and finds nothing either',
  ],
  [
    'PYSEC-2021-371',
    'pkg:pypi/binderhub@0.1.0',
    false,
    'fixed "0.2.0-n653" is not PEP 440 (as for steam), and the GIT range is not evaluated',
  ],
  ['PYSEC-2019-144', 'pkg:pypi/arrayfire@3.5.20170817', true, 'in [0, 3.6.0) and listed (the record is withdrawn, see below)'],
  ['PYSEC-2022-15', 'pkg:pypi/loguru@0.5.3', false, 'a withdrawn record with neither ranges nor versions[]'],
];

describe('affects, on real OSV records', () => {
  for (const [id, purl, expected, why] of CASES) {
    it(`${id} ${expected ? 'affects' : 'does not affect'} ${purl}: ${why}`, () => assert.equal(recordAffects(id, purl), expected));
  }

  it('uses every record it keeps, and keeps twenty or so', () => {
    const kept = readdirSync(join(FIXTURES, 'vulns', 'osv')).map((f) => f.replace(/\.json$/, ''));
    assert.deepEqual(new Set(kept), new Set(CASES.map(([id]) => id)));
    assert.equal(kept.length, 22);
  });

  it('leaves withdrawal to the caller: it is carried by the record, not by its affected entries', () => {
    for (const id of ['GO-2024-2442', 'PYSEC-2019-144', 'PYSEC-2022-15']) assert.ok(record(id).withdrawn, id);
  });
});
