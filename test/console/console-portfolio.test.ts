import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PORTFOLIO_ROWS } from '../../src/console/portfolio.page.js';
import { useHarness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { cycloneDx16 } from '../sbom/sbom-fixtures.js';

// The SBOM revision diff and the portfolio component search in the console: the services of
// `cra-admin sbom diff` and `cra-admin component search`, readable by a viewer, only ever over
// the viewer's own organisation.

const cells = (body: string, table: string) => {
  const section = new RegExp(`<table id="${table}">([\\s\\S]*?)</table>`).exec(body)?.[1] ?? '';
  return [...section.matchAll(/<tr><td>(.*?)<\/td><\/tr>/g)].map((m) =>
    m[1]!
      .split('</td><td>')
      .map((cell) => cell.replace(/<[^>]+>/g, ''))
      .join(' | '),
  );
};

describe('console: what changed between SBOM revisions, and where a component is', () => {
  const harness = useHarness();

  async function portfolio(slug: string) {
    const h = harness();
    const org = await h.orgs.createOrg({ slug, name: `${slug} GmbH` });
    await h.orgs.createOrg({ slug: `${slug}-other` });
    for (const sku of ['RTR-1', 'CAM-1']) await h.products.addProduct(slug, sku, { name: `${sku} device` });
    await h.products.addProduct(`${slug}-other`, 'THEIRS', { name: 'Their secret device' });
    const ingest = (orgId: string, sku: string, doc: unknown) =>
      h.sbom.ingestSbom({ orgId, sku, bytes: Buffer.from(JSON.stringify(doc)), actor: 'cli' });
    // RTR-1 release 1.0.0: revision 1 has lib-0..lib-3; revision 2 drops lib-0, upgrades lib-1, adds extra.
    await ingest(org.id, 'RTR-1', cycloneDx16(4, { version: '1.0.0' }));
    const second = cycloneDx16(4, { version: '1.0.0' });
    second.components.shift();
    second.components[0] = { ...second.components[0], version: '2.0.0', purl: 'pkg:npm/lib-1@2.0.0', 'bom-ref': 'pkg:npm/lib-1@2.0.0' };
    second.components.push({ type: 'library', name: 'extra', version: '0.1.0', purl: 'pkg:npm/extra@0.1.0' });
    await ingest(org.id, 'RTR-1', second);
    await ingest(org.id, 'CAM-1', cycloneDx16(2, { version: '7.0' }));
    const other = (await h.orgs.requireOrg(`${slug}-other`)).id;
    await ingest(other, 'THEIRS', cycloneDx16(3, { version: '1.0.0' }));
    const { agent } = await signedInAgent(h, slug, `viewer@${slug}.example`, 'viewer');
    return { h, agent };
  }

  it('a viewer compares two revisions of a release: added, removed, changed in version, as the CLI says', async () => {
    const { agent } = await portfolio('diff-org');
    const product = await agent.get('/console/o/diff-org/products/RTR-1');
    assert.match(product.body, /href="\/console\/o\/diff-org\/products\/RTR-1\/releases\/1\.0\.0\/diff\?from=1&amp;to=2">since revision 1/);

    const diff = await agent.get('/console/o/diff-org/products/RTR-1/releases/1.0.0/diff?from=1&to=2');
    assert.equal(diff.statusCode, 200);
    assert.match(diff.body, /Revision 1 → 2: 1 added, 1 removed, 1 changed in version/);
    assert.deepEqual(cells(diff.body, 'diff-added'), ['extra | 0.1.0 | pkg:npm/extra@0.1.0']);
    assert.deepEqual(cells(diff.body, 'diff-removed'), ['lib-0 | 1.0.0 | pkg:npm/lib-0@1.0.0']);
    assert.deepEqual(cells(diff.body, 'diff-changed'), ['lib-1 | 1.0.1 | 2.0.0 | pkg:npm/lib-1@2.0.0']);
    assert.match(diff.body, /<option value="1" selected>revision 1/);

    const reverse = await agent.get('/console/o/diff-org/products/RTR-1/releases/1.0.0/diff?from=2&to=1');
    assert.deepEqual(cells(reverse.body, 'diff-added'), ['lib-0 | 1.0.0 | pkg:npm/lib-0@1.0.0']);
    assert.deepEqual(cells(reverse.body, 'diff-changed'), ['lib-1 | 2.0.0 | 1.0.1 | pkg:npm/lib-1@1.0.1']);
    const latest = await agent.get('/console/o/diff-org/products/RTR-1/releases/1.0.0/diff');
    assert.match(latest.body, /Revision 1 → 2:/, 'without a choice: the latest revision against the one before');
    const same = await agent.get('/console/o/diff-org/products/RTR-1/releases/1.0.0/diff?from=2&to=2');
    assert.match(same.body, /Revision 2 → 2: 0 added, 0 removed, 0 changed in version/);

    const single = await agent.get('/console/o/diff-org/products/CAM-1/releases/7.0/diff');
    assert.equal(single.statusCode, 200);
    assert.match(single.body, /has one SBOM revision so far: there is nothing to compare yet/);
  });

  it('a revision or release that does not exist: the error beside the field, or 404; another organisation: 404', async () => {
    const { agent } = await portfolio('diff-bad');
    const missing = await agent.get('/console/o/diff-bad/products/RTR-1/releases/1.0.0/diff?from=1&to=9');
    assert.equal(missing.statusCode, 400);
    assert.match(missing.body, /id="to-error">Release 1\.0\.0 has no revision 9; choose one of 1, 2\./);
    const garbage = await agent.get('/console/o/diff-bad/products/RTR-1/releases/1.0.0/diff?from=x&to=2');
    assert.equal(garbage.statusCode, 400);
    assert.match(garbage.body, /id="from-error">Choose a revision\./);
    for (const url of [
      '/console/o/diff-bad/products/RTR-1/releases/5.5/diff',
      '/console/o/diff-bad/products/THEIRS/releases/1.0.0/diff?from=1&to=1',
      '/console/o/diff-bad-other/products/THEIRS/releases/1.0.0/diff',
      '/console/o/diff-bad/products/NOPE/releases/1.0.0/diff',
    ]) {
      const r = await agent.get(url);
      assert.equal(r.statusCode, 404, url);
      assert.doesNotMatch(r.body, /Their secret device|lib-0/);
    }
  });

  it('component search by purl, by name and by name and version: products, releases, revisions; never another organisation', async () => {
    const { agent } = await portfolio('search-org');
    const list = await agent.get('/console/o/search-org/products');
    assert.match(list.body, /href="\/console\/o\/search-org\/components">Find a component/);
    const empty = await agent.get('/console/o/search-org/components');
    assert.equal(empty.statusCode, 200);
    assert.doesNotMatch(empty.body, /id="hits"/);

    const byPurl = await agent.get(`/console/o/search-org/components?purl=${encodeURIComponent('pkg:npm/lib-2@1.0.2')}&name=&version=`);
    assert.equal(byPurl.statusCode, 200);
    assert.match(byPurl.body, /package URL pkg:npm\/lib-2@1\.0\.2: in 2 revisions of 1 release of 1 product/);
    assert.deepEqual(cells(byPurl.body, 'hits'), [
      'RTR-1 | 1.0.0 | revision 2 | lib-2 | 1.0.2 | pkg:npm/lib-2@1.0.2',
      'RTR-1 | 1.0.0 | revision 1 | lib-2 | 1.0.2 | pkg:npm/lib-2@1.0.2',
    ]);
    assert.match(byPurl.body, /href="\/console\/o\/search-org\/products\/RTR-1\/releases\/1\.0\.0\/revisions\/2">revision 2/);

    const byName = await agent.get('/console/o/search-org/components?name=lib-1');
    assert.match(byName.body, /lib-1: in 3 revisions of 2 releases of 2 products/);
    assert.deepEqual(
      cells(byName.body, 'hits').map((row) => row.split(' | ').slice(0, 5).join(' ')),
      ['CAM-1 7.0 revision 1 lib-1 1.0.1', 'RTR-1 1.0.0 revision 2 lib-1 2.0.0', 'RTR-1 1.0.0 revision 1 lib-1 1.0.1'],
    );
    const withVersion = await agent.get('/console/o/search-org/components?name=lib-1&version=2.0.0');
    assert.match(withVersion.body, /lib-1 2\.0\.0: in 1 revision of 1 release of 1 product/);
    const nothing = await agent.get('/console/o/search-org/components?name=nothing');
    assert.match(nothing.body, /nothing: in no SBOM/);
    // THEIRS (the other organisation) holds lib-0..lib-2 too: never listed.
    const lib0 = await agent.get('/console/o/search-org/components?name=lib-0');
    assert.deepEqual(
      cells(lib0.body, 'hits').map((row) => row.split(' | ')[0]),
      ['CAM-1', 'RTR-1'],
    );
    assert.equal((await agent.get('/console/o/search-org-other/components?name=lib-0')).statusCode, 404);
  });

  it('component search: clear errors for a purl with a name, a version without a name, an overlong field', async () => {
    const { agent } = await portfolio('search-bad');
    const both = await agent.get('/console/o/search-bad/components?purl=pkg%3Anpm%2Flib-1%401.0.1&name=lib-1');
    assert.equal(both.statusCode, 400);
    assert.match(both.body, /id="purl-error">Search either by package URL or by name and version, not both\./);
    assert.match(both.body, /value="pkg:npm\/lib-1@1\.0\.1"/, 'the form keeps what was typed');
    const versionOnly = await agent.get('/console/o/search-bad/components?version=1.0.1');
    assert.match(versionOnly.body, /id="name-error">Give the name that goes with this version\./);
    const long = await agent.get(`/console/o/search-bad/components?name=${'x'.repeat(1001)}`);
    assert.equal(long.statusCode, 400);
    assert.match(long.body, /id="name-error">A name has at most 1000 characters\./);
  });

  it(`a diff longer than ${PORTFOLIO_ROWS} rows per list shows the first ones and says how many more`, async () => {
    const { h, agent } = await portfolio('diff-long');
    const orgId = (await h.orgs.requireOrg('diff-long')).id;
    await h.sbom.ingestSbom({
      orgId,
      sku: 'CAM-1',
      bytes: Buffer.from(JSON.stringify(cycloneDx16(PORTFOLIO_ROWS + 3, { version: '7.0' }))),
      actor: 'cli',
    });
    const diff = await agent.get('/console/o/diff-long/products/CAM-1/releases/7.0/diff?from=1&to=2');
    assert.match(diff.body, new RegExp(`Revision 1 → 2: ${PORTFOLIO_ROWS + 1} added, 0 removed, 0 changed`));
    assert.equal(cells(diff.body, 'diff-added').length, PORTFOLIO_ROWS);
    assert.match(diff.body, /… and 1 more \(<code>cra-admin sbom diff --json<\/code> lists them all\)/);
  });
});
