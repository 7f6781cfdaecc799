import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useHarness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { postIncident } from '../helpers/incidents.js';
import { TODAY_CASES } from '../../src/console/today.page.js';
import { ROWS_PER_PAGE } from '../../src/console/paging.js';

describe('console signals, cases and Today', () => {
  const harness = useHarness();

  it('an analyst opens a case from a signal; Today shows its clock, red once overdue; sends are recorded; closing waits for the due filings', async () => {
    const h = harness();
    const tenant = await h.tenant('case-org', ['incidents:write']);
    await h.products.addProduct('case-org', 'RTR-100', { name: 'Router 100' });
    assert.equal(
      (
        await postIncident(h, tenant.key, {
          sku: 'RTR-100',
          description: 'Remote code execution in the web UI',
          cve: 'CVE-2026-12345',
          reporter: { name: 'Eve', contact: 'eve@example.org' },
        })
      ).statusCode,
      201,
    );
    assert.equal(
      (await postIncident(h, tenant.key, { description: 'Unknown device leaks credentials', title: 'Credential leak' })).statusCode,
      201,
    );
    const { agent } = await signedInAgent(h, 'case-org', 'ana@example.com', 'analyst');

    const today = await agent.get('/console/o/case-org/today');
    assert.match(today.body, /No open case\./);
    assert.match(today.body, /#1<\/a><\/td><td>[^<]+<\/td><td>RTR-100<\/td><td>CVE-2026-12345<\/td>/);
    const signals = await agent.get('/console/o/case-org/signals');
    assert.match(signals.body, /#2 Credential leak/);
    assert.match(signals.body, /<dt>Product<\/dt><dd>RTR-100<\/dd>/);
    assert.doesNotMatch(signals.body, /eve@example\.org/, 'reporter contact stays out of the listing');

    const openCase = (fields: Record<string, string>) =>
      agent.post('/console/o/case-org/signals/open-case', { number: '1', notifiable: 'yes', aware_at: '', product_sku: '', ...fields });
    const future = await openCase({ aware_at: '2027-01-01T00:00' });
    assert.equal(future.statusCode, 400);
    assert.match(future.body, /id="aware_at-error">the awareness time 2027-01-01T00:00:00\.000Z is in the future/);
    const noReason = await agent.post('/console/o/case-org/signals/open-case', { number: '1', aware_at: '', product_sku: '' });
    assert.match(noReason.body, /id="reason-error">Say why this case is not notifiable/);
    const wrongSku = await openCase({ product_sku: 'NOPE' });
    assert.match(wrongSku.body, /id="product_sku-error">no product with SKU &quot;NOPE&quot;/);
    const opened = await openCase({});
    assert.equal(opened.statusCode, 303);
    assert.equal(opened.headers.location, '/console/o/case-org/cases/1');
    assert.doesNotMatch((await agent.get('/console/o/case-org/signals')).body, /<h2 id="signal-1">/, 'no longer awaiting triage');

    const kase = await agent.get('/console/o/case-org/cases/1');
    assert.match(kase.body, /<h1>Case #1: Remote code execution in the web UI<\/h1>/);
    assert.match(kase.body, /Early warning \(24 h\)<\/td>\s*<td>[^<]+<br><span class="clock">24 h 00 min left<\/span>/);
    assert.match(kase.body, /user:ana@example.com<\/td><td class="action">case.opened/);

    const awareAt = new Date(h.clock.now().getTime() - 25 * 3_600_000).toISOString().slice(0, 19);
    await agent.get('/console/o/case-org/signals');
    assert.equal(
      (
        await agent.post('/console/o/case-org/signals/open-case', {
          number: '2',
          notifiable: 'yes',
          aware_at: awareAt,
          product_sku: 'RTR-100',
        })
      ).statusCode,
      303,
    );
    const clocks = await agent.get('/console/o/case-org/today/clocks');
    assert.match(
      clocks.body,
      /#2 Credential leak<\/a><\/td>\s*<td>RTR-100<\/td>\s*<td><span class="clock overdue">overdue by 1 h 00 min<\/span>/,
    );
    assert.match(clocks.body, /<span class="clock">47 h 00 min left<\/span>/);
    assert.match(
      clocks.body,
      /#1 Remote code execution in the web UI<\/a><\/td>\s*<td>RTR-100<\/td>\s*<td><span class="clock">24 h 00 min left<\/span>/,
    );
    assert.match(
      (await agent.get('/console/o/case-org/today')).body,
      /<div id="clocks" hx-get="\/console\/o\/case-org\/today\/clocks" hx-trigger="every 30s"/,
    );

    await agent.get('/console/o/case-org/cases/1');
    const bad = await agent.post('/console/o/case-org/cases/1/sent', { what: 'early-warning', at: 'yesterday' });
    assert.match(bad.body, /id="at-early-warning-error">Give the time as YYYY-MM-DDTHH:MM in UTC/);
    assert.equal((await agent.post('/console/o/case-org/cases/1/sent', { what: 'early-warning', at: '' })).statusCode, 303);
    const after = await agent.get('/console/o/case-org/cases/1');
    assert.match(after.body, /Early warning \(24 h\)<\/td>\s*<td>[^<]+<\/td>\s*<td>2026-11-22 \d\d:\d\d UTC \(on time\)<\/td>/);
    assert.match(after.body, /user:ana@example.com<\/td><td class="action">case.early_warning_recorded/);
    // Article 14: a case closes only once every due stage is filed; the page says what is missing.
    const early = await agent.post('/console/o/case-org/cases/1/close', {});
    assert.equal(early.statusCode, 409);
    assert.match(early.body, /<p class="alert" role="alert">case 1 cannot close: not yet filed: /);
    assert.match((await agent.get('/console/o/case-org/cases')).body, /<td>open, notifiable<\/td>/);
  });

  it("a viewer reads but cannot triage; another organisation's case answers 404", async () => {
    const h = harness();
    const mine = await h.tenant('view-cases', ['incidents:write']);
    const theirs = await h.tenant('their-cases', ['incidents:write']);
    await postIncident(h, mine.key, { description: 'Mine' });
    await postIncident(h, theirs.key, { description: 'Their secret incident' });
    await h.cases.openCase('their-cases', { signalNumber: 1 });
    const { agent } = await signedInAgent(h, 'view-cases', 'vic@example.com', 'viewer');
    const signals = await agent.get('/console/o/view-cases/signals');
    assert.match(signals.body, /#1 Mine/);
    assert.doesNotMatch(signals.body, /Open a case/);
    assert.equal(
      (await agent.post('/console/o/view-cases/signals/open-case', { number: '1', aware_at: '', product_sku: '' })).statusCode,
      403,
    );
    for (const url of ['/console/o/view-cases/cases/1', '/console/o/their-cases/cases/1', '/console/o/view-cases/cases/abc']) {
      const r = await agent.get(url);
      assert.equal(r.statusCode, 404, url);
      assert.doesNotMatch(r.body, /Their secret/);
    }
  });

  it(`Today shows the ${TODAY_CASES} most urgent open cases and says how many more; the case list pages by ${ROWS_PER_PAGE}`, async () => {
    const h = harness();
    const tenant = await h.tenant('busy-org', ['incidents:write']);
    const count = ROWS_PER_PAGE + 5;
    // Through the intake service: more reports than the API's rate limit lets one key send.
    for (let i = 1; i <= count; i++)
      await h.incidents.receiveSignal({ orgId: tenant.orgId, source: 'api:test' }, { description: `Report ${i}` });
    // Aware earlier the higher the number: the last case opened is the most urgent.
    const start = h.clock.now().getTime();
    for (let i = 1; i <= count; i++) {
      await h.cases.openCase('busy-org', { signalNumber: i, notifiable: true, awareAt: new Date(start - i * 60_000) });
    }
    const { agent } = await signedInAgent(h, 'busy-org', 'busy@example.com', 'viewer');
    const shown = (body: string) => [...body.matchAll(/<a href="\/console\/o\/busy-org\/cases\/(\d+)">#/g)].map((m) => Number(m[1]));

    const today = (await agent.get('/console/o/busy-org/today')).body;
    const urgent = Array.from({ length: TODAY_CASES }, (_, i) => count - i);
    assert.deepEqual(shown(today), urgent, 'the earliest due times first');
    assert.match(today, new RegExp(`and <a href="/console/o/busy-org/cases">${count - TODAY_CASES} more open cases</a>`));
    assert.deepEqual(shown((await agent.get('/console/o/busy-org/today/clocks')).body), urgent, 'the htmx refresh shows the same');

    const first = (await agent.get('/console/o/busy-org/cases')).body;
    assert.equal(shown(first).length, ROWS_PER_PAGE);
    assert.match(first, new RegExp(`${count} cases of [^,]+, newest first; 1–${ROWS_PER_PAGE} on page 1 of 2`));
    assert.match(first, /href="\/console\/o\/busy-org\/cases\?page=2">Next page/);
    const second = (await agent.get('/console/o/busy-org/cases?page=2')).body;
    assert.deepEqual(shown(second), [5, 4, 3, 2, 1]);
    assert.match(second, /href="\/console\/o\/busy-org\/cases\?page=1">Previous page/);
    assert.deepEqual(shown((await agent.get('/console/o/busy-org/cases?page=9')).body), [5, 4, 3, 2, 1], 'past the end: the last page');
  });
});
