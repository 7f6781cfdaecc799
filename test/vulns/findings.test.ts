import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { COMPONENT_SLICE } from '../../src/vulns/engine/component-matcher.js';
import { buildHarness, type Harness } from '../helpers/app.js';
import { TEST_BACKEND } from '../helpers/db.js';
import { webhookParts } from '../helpers/webhooks.js';
import { cliOf, fixture, GIN, importFeeds, importRecords, LEFTPAD, productWith, RECORDS, SALT, sbomOf } from './helpers.js';

// From real feeds to findings, as an administrator works: OSV records and the KEV catalogues
// imported, SBOMs pushed through the API, findings listed with cra-admin, analysed, and the
// exploited ones carried to an inbound signal for Article 14. Each test builds what it reads on
// a database of its own (the factories of helpers.ts), so it passes alone and in any order.

/** gin's and salt's records and CISA's catalogue (both salt CVEs are in it), then GW-1 of acme holding `purls`. */
async function gatewayWith(h: Harness, purls: readonly string[], sku = 'GW-1'): Promise<void> {
  await importRecords(h, RECORDS.gin, RECORDS.salt, RECORDS.salt2);
  await importFeeds(h, fixture('cisa-kev.json'));
  await productWith(h, purls, { sku });
}

type Listed = { vulnerability: string; product_sku: string; component: { purl: string | null } };
const keyOf = (f: Listed) => `${f.vulnerability} ${f.product_sku} ${f.component.purl}`;

describe('vulnerability intelligence from real feeds', () => {
  it('imports the OSV exports and both KEV catalogues, then an unchanged import skips every record', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const go = await cli('vuln', 'import', fixture('osv-go.zip'), '--json');
    assert.equal(go.code, 0, go.stderr);
    const summary = go.json();
    assert.equal(summary.kind, 'osv');
    assert.equal(summary.records, 4291);
    assert.deepEqual(summary.skipped, [], 'every real record passes');
    assert.equal(summary.new + summary.withdrawn, 4291);
    if (TEST_BACKEND === 'postgres') {
      // A large import takes PostgreSQL's statistics of the tables it reads by key: without them
      // each batch's lookup scanned every record stored before it (bench/vulns.mjs measures it).
      const { rows } = await sql<{
        analysed: boolean;
      }>`select last_analyze is not null as analysed from pg_stat_user_tables where relname = 'vuln_records'`.execute(h.database.db);
      assert.deepEqual(rows, [{ analysed: true }]);
    }
    const pypi = (await cli('vuln', 'import', fixture('osv-pypi.zip'), '--json')).json();
    assert.equal(pypi.records, 2661);
    assert.deepEqual(pypi.skipped, []);
    const [cisa, eu] = (await cli('vuln', 'import', fixture('cisa-kev.json'), fixture('eu-kev.json'), '--json')).json();
    assert.equal(cisa.kind, 'cisa-kev');
    assert.equal(cisa.new, 1404);
    assert.equal(eu.kind, 'eu-kev');
    assert.equal(eu.records, 43);

    const again = (await cli('vuln', 'import', fixture('osv-go.zip'), '--json')).json();
    assert.equal(again.new + again.changed, 0);
    assert.equal(again.unchanged + again.withdrawn, 4291);
    const feeds = (await cli('vuln', 'feeds', '--json')).json();
    assert.deepEqual(
      feeds.map((f: { kind: string; records: number }) => [f.kind, f.records > 0]),
      [
        ['osv', true],
        ['cisa-kev', true],
        ['eu-kev', true],
        ['epss', false],
        ['nvd', false],
        ['euvd', false],
      ],
    );
  });

  it('lists the findings of a product pushed afterwards, exploited first, with fixed versions and CVSS', async (t) => {
    const h = await buildHarness(t);
    await gatewayWith(h, [SALT, GIN, LEFTPAD]);
    const list = (await cliOf(h)('finding', 'list', '--org', 'acme', '--json')).json();
    assert.deepEqual(
      list.findings.map((f: Listed) => f.vulnerability).sort(),
      ['CVE-2020-11651', 'CVE-2020-11652', 'CVE-2020-36567'],
      'no finding for left-pad: no npm record is held',
    );
    assert.equal(list.count, 3);
    assert.ok(list.findings[0].exploited.cisa_kev && list.findings[1].exploited.cisa_kev, 'the exploited salt ones first');
    const gin = list.findings[2];
    assert.equal(gin.vulnerability, 'CVE-2020-36567');
    assert.deepEqual(gin.component, { name: 'gin', version: 'v1.5.0', purl: GIN });
    assert.deepEqual(gin.fixed_versions, ['1.6.0']);
    assert.ok(gin.aliases.includes('GO-2020-0001') && gin.aliases.includes('GHSA-6vm3-jj99-7229'));
    assert.equal(gin.state, 'in_triage');
    assert.deepEqual(gin.releases, ['1.0.0']);
  });

  it('pages the list with --limit and --offset: the whole list in the same order, with the whole count', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await gatewayWith(h, [SALT, GIN]);
    const all = (await cli('finding', 'list', '--org', 'acme', '--json')).json();
    assert.equal(all.count, 3);
    const seen: Listed[] = [];
    for (let offset = 0; offset < all.count; offset += 2) {
      const page = (await cli('finding', 'list', '--org', 'acme', '--limit', '2', '--offset', String(offset), '--json')).json();
      assert.equal(page.count, all.count, 'count is of the whole list');
      assert.ok(page.findings.length <= 2);
      seen.push(...page.findings);
    }
    assert.deepEqual(seen.map(keyOf), all.findings.map(keyOf), 'the pages, one after the other, are the whole list');
    const one = (await cli('finding', 'list', '--org', 'acme', '--vuln', 'GO-2020-0001', '--limit', '5', '--json')).json();
    assert.deepEqual(
      one.findings.map((f: Listed) => f.vulnerability),
      ['CVE-2020-36567'],
      'a vulnerability by an alias',
    );
    for (const bad of [
      ['--limit', '0'],
      ['--limit', '501'],
      ['--limit', 'ten'],
      ['--limit', '5', '--offset', '-1'],
    ]) {
      const refused = await cli('finding', 'list', '--org', 'acme', ...bad);
      assert.equal(refused.code, 2, `${bad.join(' ')}: a usage error`);
      assert.match(refused.stderr, /expected a whole number/, bad.join(' '));
    }
    const alone = await cli('finding', 'list', '--org', 'acme', '--offset', '2');
    assert.equal(alone.code, 1);
    assert.match(alone.stderr, /--offset needs --limit/);
  });

  it('lists ties in one order, whole or a page at a time: by vulnerability, then product and component as stored', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await importRecords(h, RECORDS.gin);
    // Six products with gin: six findings that tie on every score.
    for (const sku of ['P-6', 'P-2', 'P-4', 'P-1', 'P-5', 'P-3']) await productWith(h, [GIN], { sku });
    const whole = (await cli('finding', 'list', '--org', 'acme', '--json')).json();
    const skus = (findings: Listed[]) => findings.map((f) => f.product_sku);
    const { id: orgId } = await h.orgs.requireOrg('acme');
    const stored = await h.database.db.selectFrom('products').select('sku').where('org_id', '=', orgId).orderBy('id').execute();
    assert.deepEqual(
      skus(whole.findings),
      stored.map((p) => p.sku),
      'by product as stored',
    );
    const paged: Listed[] = [];
    for (let offset = 0; offset < 6; offset += 4) {
      paged.push(...(await cli('finding', 'list', '--org', 'acme', '--limit', '4', '--offset', String(offset), '--json')).json().findings);
    }
    assert.deepEqual(skus(paged), skus(whole.findings), 'the pages, one after the other, are the whole list');
    const console = await h.vulns.listFindings('acme', {}, { offset: 0, limit: 50 });
    assert.deepEqual(skus(console.findings), skus(whole.findings), "the console's page");
  });

  it("a record joining a vulnerability with a higher CVSS moves its findings in the database's order", async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await gatewayWith(h, [SALT, GIN, LEFTPAD]);
    // A second product with gin: the import refreshes both, from the organisation's matches read once.
    await productWith(h, [GIN, LEFTPAD], { sku: 'GW-3' });
    const count = async () => (await cli('finding', 'list', '--org', 'acme', '--json')).json().count;
    const before = await count();
    const dir = mkdtempSync(join(tmpdir(), 'cra-osv-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'GHSA-test-gin.json');
    writeFileSync(
      file,
      JSON.stringify({
        schema_version: '1.6.0',
        id: 'GHSA-test-gin0-0001',
        modified: '2026-01-01T00:00:00Z',
        aliases: ['CVE-2020-36567'],
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' }],
        affected: [
          {
            package: { ecosystem: 'Go', name: 'github.com/gin-gonic/gin' },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.6.0' }] }],
          },
        ],
      }),
    );
    const imported = await cli('vuln', 'import', file, '--json');
    assert.equal(imported.code, 0, imported.stderr);
    const gins = (await cli('finding', 'list', '--org', 'acme', '--vuln', 'CVE-2020-36567', '--json')).json().findings;
    assert.deepEqual(gins.map((f: Listed) => f.product_sku).sort(), ['GW-1', 'GW-3']);
    for (const gin of gins) assert.equal(gin.cvss.score, 10, 'the group takes the highest score of its records');
    assert.equal(await count(), before, 'every other finding of both products stays');
    // A page is ordered by the findings' own copy of the scores: a stale copy would misplace it.
    const page = (await cli('finding', 'list', '--org', 'acme', '--limit', '500', '--json')).json().findings;
    const keys = page.map((f: { exploited: { cisa_kev: unknown; eu_kev: unknown }; cvss: { score: number } | null }) => [
      f.exploited.cisa_kev || f.exploited.eu_kev ? 1 : 0,
      f.cvss?.score ?? -1,
    ]);
    for (let i = 1; i < keys.length; i++) {
      const [before, after] = [keys[i - 1] as number[], keys[i] as number[]];
      assert.ok(before[0]! > after[0]! || (before[0] === after[0] && before[1]! >= after[1]!), JSON.stringify(keys));
    }
    const position = page.findIndex((f: Listed) => f.vulnerability === 'CVE-2020-36567');
    assert.ok(position >= 0 && keys.slice(0, position).every((k: number[]) => k[0] === 1 || k[1]! >= 10), JSON.stringify(keys));
  });

  it('raises one INCOMING signal per product and exploited vulnerability, and fires finding.exploited for each', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await h.orgs.createOrg({ slug: 'acme' });
    await webhookParts(h).webhooks.addEndpoint({ org: 'acme', url: 'http://127.0.0.1:9/hook', events: 'finding.exploited' });
    await gatewayWith(h, [SALT, GIN]);
    await productWith(h, [SALT], { sku: 'GW-2' });
    const signals = (await cli('signal', 'list', '--org', 'acme', '--json')).json();
    const raised = signals.filter((s: { source: string }) => s.source === 'platform:vulnerability-intelligence');
    assert.deepEqual(
      raised.map((s: { product_sku: string; cve: string; status: string }) => `${s.product_sku} ${s.cve} ${s.status}`).sort(),
      ['GW-1 CVE-2020-11651 INCOMING', 'GW-1 CVE-2020-11652 INCOMING', 'GW-2 CVE-2020-11651 INCOMING', 'GW-2 CVE-2020-11652 INCOMING'],
      'salt is exploited twice over; gin is not exploited',
    );
    const events = await h.database.db.selectFrom('webhook_events').select('payload').where('type', '=', 'finding.exploited').execute();
    const fired = events.map((e) => JSON.parse(e.payload) as { type: string; data: Record<string, unknown> });
    assert.equal(fired.length, 4, 'one event per signal');
    const kev = (JSON.parse(readFileSync(fixture('cisa-kev.json'), 'utf8')) as { vulnerabilities: Array<Record<string, string>> })
      .vulnerabilities;
    for (const signal of raised as Array<{ product_sku: string; cve: string; incident_number: number }>) {
      const entry = kev.find((v) => v.cveID === signal.cve)!;
      const event = fired.find((e) => e.data.product_sku === signal.product_sku && e.data.vulnerability === signal.cve);
      assert.deepEqual(event?.data, {
        product_sku: signal.product_sku,
        vulnerability: signal.cve,
        cve: signal.cve,
        euvd: null,
        component: { name: 'salt', version: '3000.1', purl: SALT },
        exploited: {
          cisa_kev: { date_added: entry.dateAdded, ransomware: entry.knownRansomwareCampaignUse, cve: signal.cve },
          eu_kev: null,
          euvd: null,
        },
        incident_number: signal.incident_number,
      });
    }

    // Importing the catalogue again raises nothing new.
    await cli('vuln', 'import', fixture('cisa-kev.json'));
    assert.equal((await cli('signal', 'list', '--org', 'acme', '--json')).json().length, signals.length);
    assert.equal(
      (await h.database.db.selectFrom('webhook_events').select('id').where('type', '=', 'finding.exploited').execute()).length,
      4,
    );
  });

  it('analyses a finding; a rule rules out a later product, which raises no signal for it', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await gatewayWith(h, [SALT, GIN]);
    const done = await cli(
      'finding',
      'analyse',
      '--org',
      'acme',
      '--sku',
      'GW-1',
      '--vuln',
      'GO-2020-0001',
      '--state',
      'not_affected',
      '--justification',
      'code_not_reachable',
      '--detail',
      'the logger is never used',
      '--json',
    );
    assert.equal(done.code, 0, done.stderr);
    assert.deepEqual(done.json(), { vulnerability: 'CVE-2020-36567', products: ['GW-1'], rule: null });
    const gin = (await cli('finding', 'list', '--org', 'acme', '--sku', 'GW-1', '--vuln', 'CVE-2020-36567', '--json')).json().findings[0];
    assert.equal(gin.state, 'not_affected');
    assert.equal(gin.justification, 'code_not_reachable');

    const rule = await cli(
      'finding',
      'analyse',
      '--org',
      'acme',
      '--all-products',
      '--vuln',
      'CVE-2020-11652',
      '--state',
      'not_affected',
      '--justification',
      'requires_configuration',
      '--future',
      '--json',
    );
    assert.equal(rule.code, 0, rule.stderr);
    assert.ok(rule.json().rule);
    await productWith(h, [SALT], { sku: 'GW-2' });
    const later = (await cli('finding', 'list', '--org', 'acme', '--sku', 'GW-2', '--vuln', 'CVE-2020-11652', '--json')).json().findings;
    assert.equal(later[0].state, 'not_affected', 'the rule applied to the later product');
    const signals = (await cli('signal', 'list', '--org', 'acme', '--json')).json();
    assert.deepEqual(
      signals.filter((s: { product_sku: string }) => s.product_sku === 'GW-2').map((s: { cve: string }) => s.cve),
      ['CVE-2020-11651'],
      'the exploited CVE-2020-11652 was ruled not affected before it was found on GW-2',
    );
    const registry = (await cli('registry', 'list', '--org', 'acme', '--json')).json();
    assert.ok(
      registry.some((e: { action: string; subject: string }) => e.action === 'finding.analysed' && e.subject === 'GW-2 CVE-2020-11652'),
    );
    assert.equal((await cli('registry', 'verify', '--org', 'acme')).code, 0);
  });

  it('marks a finding gone when a newer revision drops the component', async (t) => {
    const h = await buildHarness(t);
    await importRecords(h, RECORDS.gin);
    await productWith(h, [LEFTPAD, GIN]);
    await productWith(h, [LEFTPAD, 'pkg:golang/github.com/gin-gonic/gin@v1.9.1']);
    const gw1 = (await cliOf(h)('finding', 'list', '--org', 'acme', '--sku', 'GW-1', '--json')).json().findings;
    assert.deepEqual(gw1, [], 'upgraded away');
    const stored = await h.database.db.selectFrom('findings').select(['vuln_key', 'gone_at', 'gone_with']).execute();
    assert.deepEqual(
      stored.map((f) => [f.vuln_key, f.gone_at !== null, f.gone_with]),
      [['CVE-2020-36567', true, '1.0.0 revision 2']],
    );
  });

  it('reads a revision longer than a slice once per component, one listed twice across slices too', async (t) => {
    const h = await buildHarness(t);
    await importRecords(h, RECORDS.gin, RECORDS.salt);
    await h.orgs.createOrg({ slug: 'acme' });
    await h.products.addProduct('acme', 'BIG-1', { name: 'Big gateway' });
    const { secret: key } = await h.keys.createKey({ org: 'acme', name: 'big-pipeline', scopes: ['products:write'] });
    const filler = (i: number) => ({
      type: 'library',
      'bom-ref': `f${i}`,
      name: `filler-${i}`,
      version: '1.0.0',
      purl: `pkg:npm/filler-${i}@1.0.0`,
    });
    // gin without a bom-ref, listed twice (it differs only in a description, which is not stored):
    // one component, in the first slice and in the third.
    const gin = (where: string) => ({ type: 'library', name: 'gin', version: 'v1.5.0', purl: GIN, description: where });
    const salt = { type: 'library', 'bom-ref': 'salt', name: 'salt', version: '3000.1', purl: SALT };
    const count = 2 * COMPONENT_SLICE + 2_000;
    const components: object[] = [];
    for (let i = 0; components.length < count; i++) {
      if (components.length === 3) components.push(gin('first'));
      else if (components.length === COMPONENT_SLICE) components.push(salt);
      else if (components.length === 2 * COMPONENT_SLICE + 7) components.push(gin('again'));
      else components.push(filler(i));
    }
    const post = async (release: string, list: object[]) => {
      const doc = { ...sbomOf([], release), components: list };
      const res = await h.request({
        method: 'POST',
        url: '/api/v1/external/products/BIG-1/sbom',
        key,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(doc),
      });
      assert.equal(res.statusCode, 201, res.body);
      await h.vulns.idle();
    };
    await post('1.0.0', components);
    const findings = async () =>
      (await cliOf(h)('finding', 'list', '--org', 'acme', '--sku', 'BIG-1', '--json')).json().findings as Array<{
        vulnerability: string;
        releases: string[];
      }>;
    const first = await findings();
    for (const vuln of ['CVE-2020-11651', 'CVE-2020-36567']) {
      assert.deepEqual(first.find((f) => f.vulnerability === vuln)?.releases, ['1.0.0'], vuln);
    }
    // Every distinct component read once.
    const { rows } = await sql<{ read: number | string; distinct_read: number | string }>`
      select count(*) as read, count(distinct cp.component_id) as distinct_read
      from component_packages cp join components c on c.id = cp.component_id
      where c.name like 'filler-%' or (c.name = 'gin' and c.ref is null) or (c.name = 'salt' and c.ref = 'salt')`.execute(h.database.db);
    assert.deepEqual(
      rows.map((r) => [Number(r.read), Number(r.distinct_read)]),
      [[count - 1, count - 1]],
    );

    // A second release holding gin and salt among others: their findings name both releases,
    // sorted; a component only the first release holds keeps its one.
    await post('0.9.0', [gin('first'), salt, ...components.slice(20, 30)]);
    const both = await findings();
    for (const vuln of ['CVE-2020-11651', 'CVE-2020-36567']) {
      assert.deepEqual(both.find((f) => f.vulnerability === vuln)?.releases, ['0.9.0', '1.0.0'], vuln);
    }
  });

  it('refuses what it cannot read, clearly', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await h.orgs.createOrg({ slug: 'acme' });
    const missing = await cli('vuln', 'import', fixture('nothing-here.zip'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no such file/);
    const notFeed = await cli('vuln', 'import', fixture('README.md'));
    assert.equal(notFeed.code, 1);
    assert.match(notFeed.stderr, /not an OSV record or export, a KEV catalogue or an EPSS score file|not a zip/);
    const forced = await cli('vuln', 'import', '--kind', 'epss', fixture('eu-kev.json'));
    assert.equal(forced.code, 1);
    assert.match(forced.stderr, /reads as eu-kev, not epss/);
    const notNvd = await cli('vuln', 'import', '--kind', 'nvd', fixture('eu-kev.json'));
    assert.equal(notNvd.code, 1);
    assert.match(notNvd.stderr, /reads as eu-kev, not nvd/);
    assert.equal((await cli('vuln', 'import', '--kind', 'ghsa', fixture('eu-kev.json'))).code, 2);
    const unknown = await cli('vuln', 'show', 'CVE-1999-0000');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no vulnerability with id or alias "CVE-1999-0000"/);
    assert.equal((await cli('finding', 'analyse', '--org', 'acme', '--sku', 'GW-1', '--vuln', 'GO-2020-0001', '--state', 'maybe')).code, 2);
    const noTarget = await cli('finding', 'analyse', '--org', 'acme', '--vuln', 'GO-2020-0001', '--state', 'resolved');
    assert.equal(noTarget.code, 1);
    assert.equal(noTarget.stderr, 'cra-admin: give either --sku or --all-products\n');
  });
});
