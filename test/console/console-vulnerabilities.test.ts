import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { FINDINGS_PER_PAGE } from '../../src/console/vulnerabilities.page.js';
import { useHarness } from '../helpers/app.js';
import { type ConsoleAgent, signedInAgent } from '../helpers/console.js';
import { CRITICAL, HIGH, HOSTILE_COMPONENT, HOSTILE_SUMMARY, importFeeds, LOW, MEDIUM, UNSCORED, vulnPortfolio } from './vuln-portfolio.js';

// The Vulnerabilities page, a vulnerability's page and its analysis form, as a browser without
// JavaScript uses them: the findings of the whole portfolio a page at a time, filtered in the
// query; the analysis through the service of `cra-admin finding analyse`; viewers read only;
// another organisation's findings never reachable; hostile advisory and SBOM text shown inert.

/** The rows of the findings table: vulnerability | summary | product | releases | component | … | analysis. */
function rows(body: string): string[][] {
  const table = /<table class="findings" id="findings">([\s\S]*?)<\/table>/.exec(body)?.[1] ?? '';
  const tbody = /<tbody>([\s\S]*?)<\/tbody>/.exec(table)?.[1] ?? '';
  return [...tbody.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)]
    .map((m) =>
      [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) =>
        c[1]!
          .replace(/<span class="ids">[\s\S]*?<\/span>/g, '')
          .replace(/<[^>]+>/g, '')
          .trim(),
      ),
    )
    .filter((cells) => cells.length === 10);
}
const caption = (body: string) => /<caption>([\s\S]*?)<\/caption>/.exec(body)?.[1]?.replace(/<[^>]+>/g, '') ?? '';

describe('console: vulnerabilities across the portfolio', () => {
  const harness = useHarness();
  let viewer: ConsoleAgent;
  let analyst: ConsoleAgent;
  const base = '/console/o/vc/vulnerabilities';

  before(async () => {
    const h = harness();
    await importFeeds(h);
    await vulnPortfolio(h, 'vc');
    viewer = (await signedInAgent(h, 'vc', 'viewer@vc.example', 'viewer')).agent;
    analyst = (await signedInAgent(h, 'vc', 'analyst@vc.example', 'analyst')).agent;
  });

  it('lists every finding exploited first, then by CVSS, with the columns of the contract', async () => {
    const page = await viewer.get(base);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<a href="\/console\/o\/vc\/vulnerabilities" aria-current="page">Vulnerabilities<\/a>/);
    assert.doesNotMatch(page.body, /href="\/console\/o\/vc\/feeds"/, 'Feeds is for owners and admins');
    assert.equal(caption(page.body), `127 findings across the portfolio; 1–${FINDINGS_PER_PAGE} on page 1 of 3`);
    const list = rows(page.body);
    assert.equal(list.length, FINDINGS_PER_PAGE);
    // The exploited left-pad on each of the three products (in any order), then lodash (8.1), then minimist (5.3).
    assert.deepEqual(
      list.slice(0, 6).map((r) => r[0]),
      [CRITICAL, CRITICAL, CRITICAL, HIGH, MEDIUM, MEDIUM],
    );
    assert.deepEqual(
      list
        .slice(0, 3)
        .map((r) => r[2])
        .sort(),
      ['CAM-1', 'GW-1', 'RTR-1'],
    );
    const rtr = list.find((r) => r[0] === CRITICAL && r[2] === 'RTR-1')!;
    assert.deepEqual(rtr, [
      CRITICAL,
      'Remote code execution in left-pad',
      'RTR-1',
      '1.0.0',
      'left-pad 1.3.0',
      '1.3.1',
      '9.8',
      '—',
      'CISA KEV',
      'in triage',
    ]);
    assert.match(page.body, /<span class="ids">TEST-CRIT-1<\/span>/, 'the other ids under the vulnerability');
    const lodash = list.find((r) => r[0] === HIGH)!;
    assert.equal(lodash[7], '42.0 %', 'EPSS as a probability');
    assert.equal(lodash[6], '8.1');
    assert.equal(list.at(-1)![0], LOW, 'the 120 low ones fill the rest');
  });

  it('filters by product, release, exploited, severity, state and the market, in the query', async () => {
    const count = async (query: string) => {
      const r = await viewer.get(`${base}?${query}`);
      assert.equal(r.statusCode, 200, `${query}: ${r.statusCode}`);
      return Number(/^(\d+) finding/.exec(caption(r.body))?.[1]);
    };
    assert.equal(await count('product=RTR-1'), 64);
    assert.equal(await count('product=CAM-1&release=7.0'), 62);
    assert.equal(await count('release=1.0.0'), 65, 'RTR-1 and GW-1 both have a release 1.0.0');
    assert.equal(await count('release=2.0.0'), 0, 'GW-1 2.0.0 no longer holds left-pad 1.3.0');
    assert.equal(await count('exploited=yes'), 3);
    assert.equal(await count('exploited=no'), 124);
    assert.equal(await count('exploited=yes&market=1'), 2, 'CAM-1 is past its end of support');
    assert.equal(await count('severity=critical'), 3);
    assert.equal(await count('severity=high'), 1);
    assert.equal(await count('severity=medium'), 2);
    assert.equal(await count('severity=low'), 120);
    assert.equal(await count('severity=none'), 0);
    assert.equal(await count('severity=unscored'), 1);
    assert.equal(await count('state=in_triage'), 127);
    assert.equal(await count('state=open'), 127);
    assert.equal(await count('state=not_affected'), 0);
    assert.equal(await count('product=RTR-1&severity=critical&exploited=yes&state=open'), 1);

    const filtered = await viewer.get(`${base}?product=RTR-1&severity=high`);
    assert.deepEqual(
      rows(filtered.body).map((r) => r[0]),
      [HIGH],
    );
    assert.match(filtered.body, /<option value="RTR-1" selected>/);
    assert.match(filtered.body, /<option value="high" selected>/);
    assert.match(caption(filtered.body), /^1 finding matching the filters$/);

    const bad = await viewer.get(`${base}?severity=apocalyptic&state=maybe`);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /<select id="severity" name="severity" aria-invalid="true" aria-describedby="severity-error">/);
    assert.match(bad.body, /id="severity-error">Choose a severity\./);
    assert.match(bad.body, /id="state-error">Choose an analysis state\./);
    assert.doesNotMatch(bad.body, /id="findings"/);
  });

  it('pages through 127 findings in the query: pages disjoint, together complete, filters kept', async () => {
    const seen = new Set<string>();
    for (const n of [1, 2, 3]) {
      const page = await viewer.get(`${base}?page=${n}`);
      const list = rows(page.body);
      assert.equal(list.length, n < 3 ? FINDINGS_PER_PAGE : 27, `page ${n}`);
      for (const r of list) seen.add(`${r[0]} ${r[2]} ${r[4]}`);
    }
    assert.equal(seen.size, 127, 'every finding once');
    const past = await viewer.get(`${base}?page=99`);
    assert.match(caption(past.body), /on page 3 of 3$/, 'past the end: the last page');
    for (const odd of ['1e400', 'abc', '-2', '2.5']) {
      const r = await viewer.get(`${base}?page=${odd}`);
      assert.equal(r.statusCode, 200, odd);
      assert.match(caption(r.body), odd === '1e400' ? /on page 3 of 3$/ : /on page [12] of 3$/, odd);
    }
    const low = await viewer.get(`${base}?severity=low&page=2`);
    assert.match(caption(low.body), /^120 findings matching the filters; 51–100 on page 2 of 3$/);
    assert.match(low.body, /href="\/console\/o\/vc\/vulnerabilities\?severity=low&amp;page=1">Previous page/);
    assert.match(low.body, /href="\/console\/o\/vc\/vulnerabilities\?severity=low&amp;page=3">Next page/);
  });

  it('shows a hostile summary and component name inert: escaped, direction controls visible', async () => {
    for (const url of [`${base}?severity=unscored`, `${base}/${UNSCORED}`]) {
      const page = await viewer.get(url);
      assert.equal(page.statusCode, 200, url);
      assert.doesNotMatch(page.body, /<script>alert|<img src=x/, url);
      assert.doesNotMatch(page.body, /\u202E/, url);
      assert.match(page.body, /&lt;script&gt;alert\(&quot;summary&quot;\)&lt;\/script&gt; \[U\+202E\]evil summary/, url);
      assert.match(page.body, /&lt;img src=x onerror=alert\(1\)&gt;\[U\+202E\]hostile component/, url);
    }
    assert.ok(HOSTILE_SUMMARY.includes('\u202E') && HOSTILE_COMPONENT.includes('\u202E'));
  });

  it("a vulnerability's page: what the feeds say and the organisation's findings; a viewer reads, cannot analyse", async () => {
    const page = await viewer.get(`${base}/TEST-CRIT-1`);
    assert.equal(page.statusCode, 200, 'any id or alias opens it');
    assert.match(page.body, /<h1>CVE-2099-0001<\/h1>/);
    assert.match(page.body, /9\.8 \(critical\) <code class="vector">CVSS:3\.1\/AV:N/);
    assert.match(page.body, /<span class="tag">CISA KEV<\/span> added 2099-01-02, ransomware use: Known/);
    for (const sku of ['RTR-1', 'CAM-1', 'GW-1']) assert.match(page.body, new RegExp(`products/${sku}">${sku}</a>`));
    assert.doesNotMatch(page.body, /THEIRS|Their secret/);
    assert.doesNotMatch(page.body, /action="[^"]*\/analysis"/);
    assert.match(page.body, /your role \(viewer\) reads it/);
    const refused = await viewer.post(`${base}/${MEDIUM}/analysis`, { sku: 'RTR-1', state: 'resolved' });
    assert.equal(refused.statusCode, 403);
    assert.equal((await viewer.get('/console/o/vc/feeds')).statusCode, 403);
    assert.equal((await viewer.get(`${base}/CVE-2099-9999`)).statusCode, 404);
  });

  it('an analyst analyses for all products, with a rule until a day: a registry entry each, shown in words', async () => {
    const h = harness();
    const form = await analyst.get(`${base}/${MEDIUM}?product=CAM-1`);
    assert.match(form.body, /<option value="CAM-1" selected>CAM-1<\/option>/, 'the product chosen on the list');
    assert.match(form.body, /Apply to all products that have it \(2\)/);
    const saved = await analyst.post(`${base}/${MEDIUM}/analysis`, {
      sku: 'CAM-1',
      all_products: 'yes',
      state: 'not_affected',
      justification: 'code_not_reachable',
      responses: ['will_not_fix', 'update'],
      detail: 'minimist parses no input of ours',
      future: 'yes',
      until: '2027-06-30',
    });
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, `${base}/${MEDIUM}?analysed=2#analysis`);
    const after = await analyst.get(`${base}/${MEDIUM}?analysed=2`);
    assert.match(after.body, /<p class="notice" role="status">Analysis saved for 2 products\.<\/p>/);
    const list = await h.vulns.listFindings('vc', { vuln: MEDIUM });
    assert.deepEqual(
      list.findings.map((f) => [f.product_sku, f.state, f.justification, f.responses, f.detail]).sort(),
      ['CAM-1', 'RTR-1'].map((sku) => [
        sku,
        'not_affected',
        'code_not_reachable',
        ['will_not_fix', 'update'],
        'minimist parses no input of ours',
      ]),
    );
    const entries = await h.database.db
      .selectFrom('registry_entries')
      .select(['actor', 'action', 'subject', 'details'])
      .where('action', 'in', ['finding.analysed', 'finding.rule_added'])
      .orderBy('seq')
      .execute();
    assert.deepEqual(entries.map((e) => [e.actor, e.action, e.subject]).sort(), [
      ['user:analyst@vc.example', 'finding.analysed', `CAM-1 ${MEDIUM}`],
      ['user:analyst@vc.example', 'finding.analysed', `RTR-1 ${MEDIUM}`],
      ['user:analyst@vc.example', 'finding.rule_added', MEDIUM],
    ]);
    assert.equal(JSON.parse(entries[2]!.details).until, '2027-07-01T00:00:00.000Z', 'through the last day given');
    const activity = await analyst.get('/console/o/vc/activity?action=finding.analysed');
    assert.match(activity.body, /CVE-2099-0003 on RTR-1 · not affected · code not reachable · responses will_not_fix, update/);
    const filtered = await analyst.get(`${base}?state=not_affected`);
    assert.deepEqual(
      rows(filtered.body)
        .map((r) => [r[0], r[2], r[9]])
        .sort(),
      [
        [MEDIUM, 'CAM-1', 'not affected'],
        [MEDIUM, 'RTR-1', 'not affected'],
      ],
    );
  });

  it('an analysis form with mistakes: each error beside its field, nothing saved', async () => {
    const h = harness();
    const before = (await h.database.db.selectFrom('registry_entries').select('seq').execute()).length;
    const post = (form: Record<string, string | string[]>) => analyst.post(`${base}/${HIGH}/analysis`, form);
    const cases: Array<[Record<string, string | string[]>, string, RegExp]> = [
      [{ sku: 'RTR-1', state: 'exploitable', justification: 'code_not_present' }, 'justification', /choose the state not affected/],
      [{ sku: 'RTR-1', state: 'not_affected', until: '2027-01-01' }, 'until', /An end date bounds a rule for later findings/],
      [{ sku: 'RTR-1', state: 'not_affected', future: 'yes', until: '2026-02-30' }, 'until', /That day does not exist/],
      [{ sku: 'RTR-1', state: 'not_affected', future: 'yes', until: '2026-01-01' }, 'until', /That day has passed/],
      [{ sku: '', state: 'resolved' }, 'sku', /Choose a product, or apply the analysis to all products/],
      [{ sku: 'RTR-1', state: 'perhaps' }, 'state', /Choose the state of the analysis/],
      [{ sku: 'RTR-1', state: 'resolved', responses: ['pray'] }, 'responses', /Choose responses from the list/],
      [{ sku: 'RTR-1', state: 'resolved', detail: 'x'.repeat(10_001) }, 'detail', /At most 10,000 characters/],
      [{ sku: 'RTR-1', state: 'resolved', detail: 'a NUL \u0000 here' }, 'detail', /contains a NUL character/],
      [{ sku: 'CAM-1', state: 'resolved' }, 'sku', /CAM-1 has no finding of CVE-2099-0002/],
      [{ sku: 'THEIRS', state: 'resolved' }, 'sku', /THEIRS/],
    ];
    for (const [form, field, message] of cases) {
      const r = await post(form);
      assert.equal(r.statusCode, 400, `${JSON.stringify(form).slice(0, 80)}: ${r.statusCode}`);
      assert.match(r.body, new RegExp(`id="${field}-error">[^<]*${message.source}`), `${field} for ${JSON.stringify(form).slice(0, 80)}`);
    }
    assert.doesNotMatch((await post({ sku: 'THEIRS', state: 'resolved' })).body, /Their secret device/);
    const after = (await h.database.db.selectFrom('registry_entries').select('seq').execute()).length;
    assert.equal(after, before, 'nothing saved');
    const kept = await post({ sku: 'RTR-1', state: 'exploitable', justification: 'code_not_present', detail: 'kept as typed' });
    assert.match(kept.body, /<textarea id="detail" name="detail" rows="4">kept as typed<\/textarea>/, 'the form keeps what was typed');
    assert.equal((await analyst.post(`${base}/CVE-2099-9999/analysis`, { sku: 'RTR-1', state: 'resolved' })).statusCode, 404);
    assert.equal((await analyst.post(`${base}/${HIGH}/analysis`, { sku: 'RTR-1', state: 'resolved' }, { csrf: false })).statusCode, 403);
  });

  it("another organisation's findings, products and VEX are unreachable: 404, never shown", async () => {
    for (const url of [
      '/console/o/vc-other/vulnerabilities',
      '/console/o/vc-other/vulnerabilities/CVE-2099-0001',
      `${base}?product=THEIRS`,
      `${base}?product=NOPE`,
      '/console/o/vc/products/THEIRS',
      '/console/o/vc/products/THEIRS/releases/9.9/vex/openvex',
      '/console/o/vc-other/products/THEIRS/releases/9.9/vex/openvex',
    ]) {
      const r = await viewer.get(url);
      assert.equal(r.statusCode, 404, url);
      assert.doesNotMatch(r.body, /Their secret device|THEIRS<\/a>/, url);
    }
    const all = await viewer.get(`${base}?page=1`);
    assert.doesNotMatch(all.body, /THEIRS/);
  });

  it('a product page: coverage and why not, findings per release, VEX downloads a viewer may take', async () => {
    const page = await viewer.get('/console/o/vc/products/RTR-1');
    assert.equal(page.statusCode, 200);
    const section = /<section aria-labelledby="vulns-title" id="vulnerabilities">([\s\S]*?)<\/section>/.exec(page.body)?.[1] ?? '';
    assert.match(section, /<a href="\/console\/o\/vc\/vulnerabilities\?product=RTR-1">64 known vulnerabilities<\/a>/);
    assert.match(section, /<dt>Components<\/dt><dd>67 in the latest revisions<\/dd>/);
    assert.match(section, /<dt>Matchable<\/dt><dd>64 \(96 %\)/);
    assert.match(
      section,
      /1 with neither package URL nor CPE \(none of them with candidate CPEs\) · 0 with a CPE that does not parse · 0 with a CPE naming no vendor the vendor table knows · 1 without a version · 0 with a version the order cannot read · 1 of an ecosystem no advisory database covers/,
    );
    const release = /<tr><td>1\.0\.0<\/td>([\s\S]*?)<\/tr>/.exec(section)?.[1] ?? '';
    const cells = [...release.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) =>
      m[1]!.replace(/<span class="visually-hidden">[^<]*<\/span>/g, '').replace(/<[^>]+>/g, ''),
    );
    // Findings, exploited, critical, high, to act on (minimist was analysed not affected).
    assert.deepEqual(cells.slice(1, 6), ['64', '1', '1', '1', '63']);
    assert.match(release, /href="\/console\/o\/vc\/vulnerabilities\?product=RTR-1&amp;release=1\.0\.0">64/);

    const gw = await viewer.get('/console/o/vc/products/GW-1');
    const gwReleases = [...gw.body.matchAll(/<tr><td>([^<]+)<\/td><td class="when">/g)].map((m) => m[1]);
    assert.deepEqual(gwReleases, ['2.0.0', '1.0.0'], 'newest SBOM first');

    const vex = '/console/o/vc/products/RTR-1/releases/1.0.0/vex';
    const cdx = await viewer.get(`${vex}/cyclonedx`);
    assert.equal(cdx.statusCode, 200);
    assert.match(cdx.headers['content-type'] as string, /^application\/vnd\.cyclonedx\+json; version="?1\.6"?/);
    assert.equal(cdx.headers['content-disposition'], 'attachment; filename="RTR-1-1.0.0.vex.cdx.json"');
    assert.equal(cdx.headers['cache-control'], 'no-store');
    const doc = JSON.parse(cdx.body);
    assert.equal(doc.bomFormat, 'CycloneDX');
    const ids = doc.vulnerabilities.map((v: { id: string }) => v.id);
    assert.ok(ids.includes(CRITICAL) && ids.includes(MEDIUM), ids.join(' '));
    const minimist = doc.vulnerabilities.find((v: { id: string }) => v.id === MEDIUM);
    assert.equal(minimist.analysis.state, 'not_affected');

    const csaf = await viewer.get(`${vex}/csaf`);
    assert.equal(csaf.statusCode, 200);
    assert.match(csaf.headers['content-type'] as string, /^application\/json/);
    const tracking = JSON.parse(csaf.body).document.tracking.id as string;
    assert.equal(
      csaf.headers['content-disposition'],
      `attachment; filename="${tracking.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_')}.json"`,
    );
    const openvex = await viewer.get(`${vex}/openvex`);
    assert.equal(openvex.headers['content-disposition'], 'attachment; filename="RTR-1-1.0.0.openvex.json"');
    assert.equal(JSON.parse(openvex.body)['@context'], 'https://openvex.dev/ns/v0.2.0');
    assert.equal((await viewer.get(`${vex}/spdx`)).statusCode, 404);
    assert.equal((await viewer.get(`${vex}/toString`)).statusCode, 404);
    assert.equal((await viewer.get('/console/o/vc/products/RTR-1/releases/5.5/vex/openvex')).statusCode, 404);
  });

  it('an admin sees the feeds: records, last import, newest entry, source; a warning for a stale or missing feed', async () => {
    const h = harness();
    const admin = (await signedInAgent(h, 'vc', 'admin@vc.example', 'admin')).agent;
    const page = await admin.get('/console/o/vc/feeds');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<a href="\/console\/o\/vc\/feeds" aria-current="page">Feeds<\/a>/);
    const feedRows = [...page.body.matchAll(/<tr><td><strong>([a-z-]+)<\/strong>[\s\S]*?<td class="num">(\d+)<\/td>[\s\S]*?<\/tr>/g)].map(
      (m) => [m[1], Number(m[2])],
    );
    assert.deepEqual(feedRows, [
      ['osv', 5],
      ['cisa-kev', 1],
      ['eu-kev', 0],
      ['epss', 1],
      ['nvd', 0],
      ['euvd', 0],
    ]);
    assert.match(page.body, /<div class="warning" role="status" id="stale">[\s\S]*<li>eu-kev: never imported<\/li>/);
    assert.doesNotMatch(page.body, /<li>osv:/, 'fresh feeds are not listed');
    assert.match(page.body, /npx cra-admin vuln import/);
    assert.match(page.body, /set <code>VULN_FEEDS<\/code>/);

    h.clock.advance(8 * 86_400_000);
    const later = (await signedInAgent(h, 'vc', 'owner@vc.example', 'owner')).agent;
    const stale = await later.get('/console/o/vc/feeds');
    assert.match(stale.body, /<li>osv: last imported 8 days ago \(2026-11-22 10:00 UTC\)<\/li>/);
    assert.match(stale.body, /<span class="bad">stale: 8 days<\/span>/);
    const analystNav = await analyst.get('/console/o/vc/vulnerabilities');
    assert.ok(
      analystNav.statusCode === 200 || analystNav.statusCode === 303,
      'the analyst (whose session may have ended) never sees Feeds',
    );
    assert.doesNotMatch(analystNav.body, /href="\/console\/o\/vc\/feeds"/);
  });
});
