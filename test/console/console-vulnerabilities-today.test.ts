import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useHarness } from '../helpers/app.js';
import { type ConsoleAgent, signedInAgent } from '../helpers/console.js';
import { CRITICAL, importFeeds, vulnPortfolio } from './vuln-portfolio.js';

// Exploited findings where the work happens: on Today, above the signals the platform raised for
// them, linking to the Vulnerabilities page filtered the same way; and on the page of a case
// opened from such a signal, the release that no longer holds the component proposed as the
// corrective measure, prefilled into the form a person still submits.

describe('console: exploited findings on Today and on their case', () => {
  const harness = useHarness();
  let viewer: ConsoleAgent;
  let analyst: ConsoleAgent;
  const base = '/console/o/vt/vulnerabilities';
  const caption = (body: string) => /<caption>([\s\S]*?)<\/caption>/.exec(body)?.[1]?.replace(/<[^>]+>/g, '') ?? '';

  before(async () => {
    const h = harness();
    await importFeeds(h);
    await vulnPortfolio(h, 'vt');
    viewer = (await signedInAgent(h, 'vt', 'viewer@vt.example', 'viewer')).agent;
    analyst = (await signedInAgent(h, 'vt', 'analyst@vt.example', 'analyst')).agent;
  });

  it('Today: exploited findings on products on the market, above the signals, linking to the filtered page', async () => {
    const today = await viewer.get('/console/o/vt/today');
    assert.equal(today.statusCode, 200);
    const at = today.body.indexOf('id="exploited-title"');
    assert.ok(at > 0 && at < today.body.indexOf('id="signals-title"'), 'above the signals');
    const section = /<section aria-labelledby="exploited-title" id="exploited">([\s\S]*?)<\/section>/.exec(today.body)?.[1] ?? '';
    assert.match(section, /<strong>2<\/strong> findings of vulnerabilities listed as actively exploited/);
    assert.match(
      section,
      /href="\/console\/o\/vt\/vulnerabilities\?state=open&amp;exploited=yes&amp;market=1">All 2 on the Vulnerabilities page/,
    );
    assert.match(section, /href="\/console\/o\/vt\/vulnerabilities\?state=open&amp;exploited=yes&amp;market=1&amp;product=GW-1">GW-1/);
    assert.doesNotMatch(section, /CAM-1/, 'off the market');
    const linked = await viewer.get(`${base}?state=open&exploited=yes&market=1`);
    assert.match(caption(linked.body), /^2 findings matching the filters$/);
  });

  it('a case opened from the exploited signal proposes the release that dropped the component as the fix', async () => {
    const h = harness();
    const signal = (await h.incidents.listSignals('vt')).find((x) => x.product_sku === 'GW-1')!;
    assert.equal(signal.cve, CRITICAL);
    await h.cases.openCase('vt', { signalNumber: signal.incident_number, notifiable: true, kind: 'vulnerability' });
    const gw2 = (await h.sbomHistory.revisions('vt', 'GW-1')).find((r) => r.release_version === '2.0.0')!;
    const url = `/console/o/vt/cases/${signal.incident_number}`;
    const page = await analyst.get(url);
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      /id="fix-proposal">Proposed from the SBOMs: release <strong>2\.0\.0<\/strong>, whose SBOM came [^,]+, no longer contains left-pad 1\.3\.0, the component affected by CVE-2099-0001\./,
    );
    assert.match(
      page.body,
      new RegExp(`<input id="fix_at" name="fix_at" type="text" placeholder="YYYY-MM-DDTHH:MM" value="${gw2.ingested_at.slice(0, 19)}">`),
    );
    assert.match(page.body, /value="Release 2\.0\.0 no longer contains left-pad 1\.3\.0 \(CVE-2099-0001\)"/);
    const read = await viewer.get(url);
    assert.doesNotMatch(read.body, /fix-proposal|name="fix_at"/, 'a viewer records nothing');

    // A person decides: the prefilled form, posted as it is, records the release as the measure.
    const recorded = await analyst.post(`${url}/fix`, {
      fix_at: gw2.ingested_at.slice(0, 19),
      fix_description: 'Release 2.0.0 no longer contains left-pad 1.3.0 (CVE-2099-0001)',
    });
    assert.equal(recorded.statusCode, 303);
    const kase = await h.cases.getCase('vt', signal.incident_number);
    assert.equal(kase.fix_available_at, new Date(`${gw2.ingested_at.slice(0, 19)}Z`).toISOString());
    assert.doesNotMatch((await analyst.get(url)).body, /fix-proposal/, 'once recorded, nothing to propose');

    // The RTR-1 case has no newer release without left-pad: no proposal.
    const rtr = (await h.incidents.listSignals('vt')).find((x) => x.product_sku === 'RTR-1')!;
    await h.cases.openCase('vt', { signalNumber: rtr.incident_number, notifiable: true, kind: 'vulnerability' });
    const none = await analyst.get(`/console/o/vt/cases/${rtr.incident_number}`);
    assert.match(none.body, /name="fix_at"/);
    assert.doesNotMatch(none.body, /fix-proposal/);
  });
});
