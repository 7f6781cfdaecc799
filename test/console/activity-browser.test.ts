// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { acceptInvitation, browserSkip as skip, checkA11y, launchChromium, shoot } from '../helpers/browser.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';

// The Activity page and a case's History in Chromium at 1280 × 800, after a day's work of every
// kind (products, an SBOM, keys, signals, triage, a case through its first reports): each entry's
// details read as words, not JSON; every table stays inside the window; each date is one line;
// the raw JSON is one click away; axe finds nothing serious.

const WIDTH = 1280;

/** How the page sits in the window: overflow, and every table's width. */
async function layout(page: Page) {
  return page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    tables: [...document.querySelectorAll('main table')].map((t) => Math.round(t.getBoundingClientRect().right)),
  }));
}

/** The dates of the table's When column that take more than one line. */
async function wrappedDates(page: Page, selector: string) {
  return page.evaluate((cells) => {
    const wrapped: string[] = [];
    for (const cell of document.querySelectorAll(cells)) {
      const range = document.createRange();
      range.selectNodeContents(cell);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) wrapped.push(cell.textContent ?? '');
    }
    return wrapped;
  }, selector);
}

describe('activity and history in a 1280-pixel window', { skip }, () => {
  let server: RunningServer;
  let browser: Browser;
  let drop: () => Promise<void>;
  let env: Record<string, string>;
  let page: Page;
  const cli = async (...args: string[]) => {
    const r = await runCli(args, { ...env, PUBLIC_URL: server.url });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    server = await startServer({ ...env, LOG_LEVEL: 'warn' });
    browser = await launchChromium();
    await cli('org', 'create', 'acme', '--name', 'Acme Devices GmbH');
    await cli(
      ...['org', 'set', 'acme', '--legal-name', 'Acme Devices GmbH', '--address', 'Hauptstraße 1, 10115 Berlin'],
      ...['--contact-email', 'psirt@acme.example', '--member-state', 'DE'],
    );
    await cli('product', 'add', '--org', 'acme', '--sku', 'DW-1', '--name', 'Dropwizard gateway', '--firmware-version', '1.3.15');
    await cli('sbom', 'upload', '--org', 'acme', '--sku', 'DW-1', `${REPO_ROOT}test/fixtures/sbom/cyclonedx/dropwizard-1.3.15-bom.json`);
    await cli('key', 'create', '--org', 'acme', '--name', 'erp', '--scopes', 'products:read,incidents:write,compliance:read');
    await cli('key', 'rotate', '--org', 'acme', '--name', 'erp', '--grace', '10m');
    const intake = (await cli('key', 'create', '--org', 'acme', '--name', 'intake', '--scopes', 'incidents:write', '--json')).json().secret;
    for (const body of [
      {
        sku: 'DW-1',
        title: 'Admin UI runs commands',
        description: 'An unauthenticated request to /cgi-bin/admin ran shell commands.',
        cve: 'CVE-2026-4242',
      },
      { description: 'Scanner noise from our own monitoring' },
    ]) {
      const r = await fetch(`${server.url}/api/v1/external/incidents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-cra-api-key': intake },
        body: JSON.stringify(body),
      });
      assert.equal(r.status, 201);
    }
    await cli('signal', 'dismiss', '--org', 'acme', '--signal', '2', '--reason', 'test message from our own monitoring');
    const aware = new Date(Date.now() - 3 * 3_600_000).toISOString();
    await cli('case', 'open', '--org', 'acme', '--signal', '1', '--notifiable', '--kind', 'vulnerability', '--aware-at', aware);
    await cli('case', 'early-warning', '--org', 'acme', '--number', '1');
    await cli('case', 'intermediate-requested', '--org', 'acme', '--number', '1', '--due', new Date(Date.now() + 86_400_000).toISOString());
    const fixed = new Date(Date.now() - 3_600_000).toISOString();
    await cli(
      'case',
      'fix-available',
      '--org',
      'acme',
      '--number',
      '1',
      '--at',
      fixed,
      '--description',
      'Firmware 1.3.16 validates the request',
    );

    const context = await browser.newContext({ viewport: { width: WIDTH, height: 800 } });
    page = await context.newPage();
    await acceptInvitation(page, (...args) => cli(...args), 'acme', 'ana@example.com', 'owner');
    await page.getByRole('link', { name: /continue/ }).click();
    await page.waitForURL('**/console/o/acme/today');
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await drop?.();
  });

  it('the Activity page reads as words, fits the window, dates on one line, the JSON one click away', async () => {
    await page.goto(`${server.url}/console/o/acme/activity`);
    await page.getByRole('heading', { name: 'Activity registry' }).waitFor();
    const fit = await layout(page);
    assert.ok(fit.scrollWidth <= WIDTH, `the page is ${fit.scrollWidth} px wide`);
    assert.ok(
      fit.tables.every((right) => right <= WIDTH),
      `tables end at ${fit.tables} px`,
    );
    assert.deepEqual(await wrappedDates(page, 'main td.when'), [], 'dates on one line');

    const opened = page.getByRole('row', { name: /case\.opened/ });
    await opened.getByText(/aware at \d{1,2} \w{3} \d{2}:\d{2} UTC · vulnerability · notifiable/).waitFor();
    await page
      .getByRole('row', { name: /sbom\.ingested/ })
      .getByText(/release 1\.3\.15, revision 1 · 167 components · CycloneDX 1\.2/)
      .waitFor();
    await page
      .getByRole('row', { name: /signal\.dismissed/ })
      .getByText(/reason: test message from our own monitoring/)
      .waitFor();
    assert.equal(await page.locator('main td').filter({ hasText: /^\{"/ }).count(), 0, 'no cell starts as JSON');

    // The raw JSON is behind a disclosure: hidden, then shown by one click.
    const json = opened.locator('details pre');
    assert.equal(await json.isVisible(), false);
    await opened.locator('details summary').click();
    assert.match((await json.textContent()) ?? '', /"kind":\s*"vulnerability"/);
    assert.ok((await layout(page)).scrollWidth <= WIDTH, 'still inside the window with the JSON open');
    await checkA11y(page, 'activity');
    await shoot(page, 'activity');
  });

  it("a case's History reads as words and fits the window", async () => {
    await page.goto(`${server.url}/console/o/acme/cases/1`);
    const history = page.locator('section[aria-labelledby="history-title"]');
    await history.getByText(/aware at \d{1,2} \w{3} \d{2}:\d{2} UTC · vulnerability · notifiable/).waitFor();
    await history.getByText(/early warning sent at .* · on time/).waitFor();
    await history.getByText(/intermediate report 1 due/).waitFor();
    await history.getByText(/fix available at .* · Firmware 1\.3\.16 validates the request/).waitFor();
    const fit = await layout(page);
    assert.ok(fit.scrollWidth <= WIDTH, `the page is ${fit.scrollWidth} px wide`);
    assert.ok(
      fit.tables.every((right) => right <= WIDTH),
      `tables end at ${fit.tables} px`,
    );
    assert.deepEqual(await wrappedDates(page, 'section[aria-labelledby="history-title"] td.when'), [], 'dates on one line');
    await checkA11y(page, 'case history');
    await shoot(page, 'case-history');
  });
});
