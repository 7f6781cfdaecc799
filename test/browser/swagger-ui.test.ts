// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl, TEST_BACKEND } from '../helpers/db.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';

// The console as a person uses it: Debian's Chromium loads /docs, follows the redirect, renders
// the operations from the live document and calls the API with a key typed into "Authorize".
// Every request the page makes must go to the serving host.
describe('Swagger UI in a real browser', {
  skip: TEST_BACKEND !== 'sqlite' || !existsSync(CHROMIUM) ? 'needs Debian chromium (once per run)' : false,
}, () => {
  let server: RunningServer;
  let browser: Browser;
  let secret: string;
  let drop: () => Promise<void>;

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    const env = { DATABASE_URL: db.url };
    await runCli(['org', 'create', 'ui'], env);
    secret = (await runCli(['key', 'create', '--org', 'ui', '--name', 'browser', '--scopes', 'products:read', '--json'], env)).json()
      .secret;
    await runCli(['product', 'add', '--org', 'ui', '--sku', 'UI-1', '--name', 'Thermostat'], env);
    server = await startServer({ ...env, LOG_LEVEL: 'warn' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await drop?.();
  });

  it('renders every operation from the served document, loading nothing from elsewhere', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(`${server.url}/docs`);
    assert.equal(new URL(page.url()).pathname.replace(/\/$/, ''), '/swagger');
    await page.waitForSelector('.opblock-summary-path', { timeout: 15_000 });
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
    assert.deepEqual([...paths].sort(), ['/compliance-score', '/incidents', '/products', '/products/{sku}/sbom']);
    const servers = await page.$$eval('.servers select option', (els) => els.map((e) => (e as HTMLOptionElement).value));
    assert.deepEqual(servers[0], `${server.url}/api/v1/external`);
    const foreign = requested.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:'));
    assert.deepEqual(foreign, [], 'every asset comes from the serving host');
    await page.close();
  });

  it('calls the API with a key entered under Authorize ("Try it out")', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/swagger`);
    await page.waitForSelector('.btn.authorize');
    await page.click('.btn.authorize');
    const input = page.locator('.modal-ux input[type=text], .modal-ux input[type=password]').first();
    await input.fill(secret);
    await page.locator('.modal-ux .auth-btn-wrapper .authorize').first().click();
    await page.locator('.modal-ux .btn-done').first().click();
    await page.locator('#operations-products-listProducts .opblock-summary').click();
    await page.locator('#operations-products-listProducts .try-out__btn').click();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/v1/external/products')),
      page.locator('#operations-products-listProducts .execute').click(),
    ]);
    assert.equal(response.status(), 200);
    const body = (await response.json()) as { count: number; products: Array<{ sku: string }> };
    assert.equal(body.count, 1);
    assert.equal(body.products[0]!.sku, 'UI-1');
    await page.close();
  });
});
