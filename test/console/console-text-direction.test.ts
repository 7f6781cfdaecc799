import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeForPage } from '../../src/console/format.js';
import { useHarness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { postIncident } from '../helpers/incidents.js';

// Unicode direction controls (U+202A–U+202E, U+2066–U+2069) in text that clients and people type:
// a RIGHT-TO-LEFT OVERRIDE in a product name shows "Router 1 evil.exe" as "Router 1 exe.live"
// and turns around everything after it on the line. The console shows each as a visible
// [U+202E] instead; what the API stored and answers is left as it is.

const RLO = '\u202E';
const CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

describe('direction controls in the console', () => {
  const harness = useHarness();

  it('escapes them as visible code points with the HTML', () => {
    assert.equal(escapeForPage(`a${RLO}b<c>\u2066d\u2069 & "e"`), 'a[U+202E]b&lt;c&gt;[U+2066]d[U+2069] &amp; &quot;e&quot;');
    assert.equal(escapeForPage('Ünïcödé العربية'), 'Ünïcödé العربية', 'other text, right-to-left scripts too, as it is');
  });

  it('never reach a page: product names, signal titles, cases and report fields show them as [U+…]', async () => {
    const h = harness();
    const tenant = await h.tenant('bidi', ['incidents:write', 'products:read']);
    await h.products.addProduct('bidi', 'RTR-1', { name: `Router 1 ${RLO}exe.live` });
    await postIncident(h, tenant.key, { sku: 'RTR-1', title: `Telnet ${RLO}NAW no nepo`, description: `Open ${RLO}\u2067port\u2069 23` });
    await postIncident(h, tenant.key, { sku: 'RTR-1', title: `Left ${RLO}egaiart rof`, description: 'Awaits triage' });
    const { agent } = await signedInAgent(h, 'bidi', 'bidi@example.com', 'analyst');
    await agent.get('/console/o/bidi/signals');
    const opened = await agent.post('/console/o/bidi/signals/open-case', {
      number: '1',
      kind: 'vulnerability',
      notifiable: 'yes',
      aware_at: '2026-11-22T09:00',
      product_sku: '',
    });
    assert.equal(opened.statusCode, 303);
    for (const [url, shown] of [
      ['/console/o/bidi/products', 'Router 1 [U+202E]exe.live'],
      ['/console/o/bidi/products/RTR-1', 'Router 1 [U+202E]exe.live'],
      ['/console/o/bidi/signals', 'Left [U+202E]egaiart rof'],
      ['/console/o/bidi/cases', 'Telnet [U+202E]NAW no nepo'],
      ['/console/o/bidi/cases/1', 'Telnet [U+202E]NAW no nepo'],
      ['/console/o/bidi/today', 'Telnet [U+202E]NAW no nepo'],
      ['/console/o/bidi/cases/1/reports/early-warning', 'value="Telnet [U+202E]NAW no nepo"'],
      ['/console/o/bidi/activity', 'RTR-1'],
    ] as const) {
      const page = await agent.get(url);
      assert.equal(page.statusCode, 200, url);
      assert.doesNotMatch(page.body, CONTROLS, `${url} holds a direction control`);
      assert.ok(page.body.includes(shown), `${url} shows ${shown}`);
    }
    // The API answers what it stored.
    const products = await h.request({ method: 'GET', url: '/api/v1/external/products', key: tenant.key });
    assert.equal(JSON.parse(products.body).products[0].name, `Router 1 ${RLO}exe.live`);
  });
});
