import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { buildHarness, type Harness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { cliOf, fixture, GIN, importFeeds, importRecords, productWith, RECORDS, SALT } from './helpers.js';

// Coverage (vulnerabilities.md, Matching): a component of an ecosystem no held advisory names is
// not matchable, whatever its version; `finding coverage` and the product page say the same.

const NPM = 'pkg:npm/left-pad@1.3.0';
const CARGO = 'pkg:cargo/serde@1.0.0';
const NPM_WITHOUT_VERSION = 'pkg:npm/lodash';
const GO_ODD_VERSION = 'pkg:golang/github.com/acme/tool@not-a-version';

/** The product page's coverage as a reader sees it: each fact's text. */
async function productPageCoverage(h: Harness, org: string, sku: string): Promise<Record<string, string>> {
  const { agent } = await signedInAgent(h, org, `viewer@${org}.example`, 'viewer');
  const page = await agent.get(`/console/o/${org}/products/${sku}`);
  assert.equal(page.statusCode, 200);
  const facts = /<dl class="facts" id="coverage">([\s\S]*?)<\/dl>/.exec(page.body)?.[1] ?? '';
  const text = (html: string) => html.replace(/<[^>]+>/g, '').trim();
  return Object.fromEntries([...facts.matchAll(/<dt>([\s\S]*?)<\/dt><dd>([\s\S]*?)<\/dd>/g)].map((m) => [text(m[1]!), text(m[2]!)]));
}

describe('coverage', () => {
  it('counts the components of an ecosystem no held advisory names as not covered (only Go and PyPI imported)', async (t) => {
    const h = await buildHarness(t);
    await importRecords(h, RECORDS.gin, RECORDS.salt);
    await productWith(h, [NPM, CARGO, SALT, GIN, NPM_WITHOUT_VERSION]);
    const coverage = await cliOf(h)('finding', 'coverage', '--org', 'acme', '--json');
    assert.equal(coverage.code, 0, coverage.stderr);
    assert.deepEqual(coverage.json(), [
      {
        sku: 'GW-1',
        components: 5,
        matchable: 2,
        matchable_by: { purl: 2, cpe: 0 },
        not_matchable: {
          no_identifier: 0,
          no_identifier_with_candidates: 0,
          cpe_invalid: 0,
          cpe_vendor_unknown: 0,
          version_missing: 0,
          version_unparsable: 0,
          ecosystem_not_covered: 3,
        },
      },
    ]);
    const facts = await productPageCoverage(h, 'acme', 'GW-1');
    assert.match(facts.Components!, /^5 in the latest revisions/);
    assert.match(facts.Matchable!, /^2 \(40 %\)/);
    assert.match(facts['Not matchable']!, /^0 with neither package URL nor CPE .* · 3 of an ecosystem no advisory database covers$/);
  });

  it('counts them as matchable once an advisory of their ecosystem is held, and a withdrawn one holds none', async (t) => {
    const h = await buildHarness(t);
    await importRecords(h, RECORDS.gin);
    await productWith(h, [GIN, GO_ODD_VERSION, SALT]);
    const coverage = async () => (await cliOf(h)('finding', 'coverage', '--org', 'acme', '--sku', 'GW-1', '--json')).json()[0];
    assert.deepEqual(
      (await coverage()).not_matchable,
      {
        no_identifier: 0,
        no_identifier_with_candidates: 0,
        cpe_invalid: 0,
        cpe_vendor_unknown: 0,
        version_missing: 0,
        version_unparsable: 1,
        ecosystem_not_covered: 1,
      },
      'PyPI not held',
    );
    await importRecords(h, RECORDS.salt);
    assert.deepEqual(await coverage(), {
      sku: 'GW-1',
      components: 3,
      matchable: 2,
      matchable_by: { purl: 2, cpe: 0 },
      not_matchable: {
        no_identifier: 0,
        no_identifier_with_candidates: 0,
        cpe_invalid: 0,
        cpe_vendor_unknown: 0,
        version_missing: 0,
        version_unparsable: 1,
        ecosystem_not_covered: 0,
      },
    });
    // gin's record withdrawn: no Go advisory is held any more.
    await importFeeds(h, withdrawnCopy(t, RECORDS.gin));
    assert.deepEqual((await coverage()).not_matchable, {
      no_identifier: 0,
      no_identifier_with_candidates: 0,
      cpe_invalid: 0,
      cpe_vendor_unknown: 0,
      version_missing: 0,
      version_unparsable: 0,
      ecosystem_not_covered: 2,
    });
  });
});

/** The record, withdrawn, in a file of its own (removed when the test ends). */
function withdrawnCopy(t: TestContext, id: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cra-withdrawn-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const record = JSON.parse(readFileSync(fixture(`records/${id}.json`), 'utf8'));
  const file = join(dir, `${id}.json`);
  writeFileSync(file, JSON.stringify({ ...record, withdrawn: '2026-01-01T00:00:00Z' }));
  return file;
}
