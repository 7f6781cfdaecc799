// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { acceptInvitation, browserSkip as skip, checkA11y, launchChromium, shoot } from '../helpers/browser.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';
import { fixture } from '../vulns/helpers.js';

// Vulnerability intelligence in Chromium against the real server process, at 1280 × 800: the real
// Go and PyPI OSV exports and CISA's KEV catalogue imported with cra-admin, the walk-through's
// router SBOM pushed for two products; then, as an analyst, the exploited salt finding on Today,
// the Vulnerabilities page filtered, gin's vulnerability analysed for all products, a VEX
// downloaded from the product page, and the release that dropped salt proposed as the fix of the
// case. axe finds nothing serious or critical on any page; every table stays inside the window.

const WIDTH = 1280;
const ROUTER = `${REPO_ROOT}examples/router-2.5.0.cdx.json`;
const SALT = 'CVE-2020-11651'; // salt 3000.1, in CISA KEV
const GIN = 'CVE-2020-36567'; // gin v1.5.0 (GO-2020-0001, GHSA-6vm3-jj99-7229), fixed in 1.6.0

describe('vulnerabilities in a real browser', { skip }, () => {
  let server: RunningServer;
  let browser: Browser;
  let drop: () => Promise<void>;
  let env: Record<string, string>;
  let page: Page;
  let dir: string;
  const cli = async (...args: string[]) => {
    const r = await runCli(args, { ...env, PUBLIC_URL: server?.url ?? 'http://127.0.0.1' });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  const url = (path: string) => `${server.url}/console/o/acme${path}`;

  /** The page stays inside the window: no horizontal scrolling, every table's right edge within it. */
  async function fits(name: string) {
    const fit = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      tables: [...document.querySelectorAll('main table')].map((t) => Math.round(t.getBoundingClientRect().right)),
    }));
    assert.ok(fit.scrollWidth <= WIDTH, `${name}: the page is ${fit.scrollWidth} px wide`);
    assert.ok(
      fit.tables.every((right) => right <= WIDTH),
      `${name}: tables end at ${fit.tables} px`,
    );
  }

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    dir = mkdtempSync(join(tmpdir(), 'cra-vuln-browser-'));
    await cli('org', 'create', 'acme', '--name', 'Acme Devices GmbH');
    await cli('product', 'add', '--org', 'acme', '--sku', 'RTR-100', '--name', 'Router 100', '--end-of-support', '2030-12-31');
    await cli('product', 'add', '--org', 'acme', '--sku', 'RTR-200', '--name', 'Router 200', '--end-of-support', '2030-12-31');
    const imported = (
      await cli('vuln', 'import', fixture('osv-go.zip'), fixture('osv-pypi.zip'), fixture('cisa-kev.json'), '--json')
    ).json() as Array<{ kind: string; skipped: unknown[] }>;
    assert.deepEqual(
      imported.map((s) => [s.kind, s.skipped.length]),
      [
        ['osv', 0],
        ['osv', 0],
        ['cisa-kev', 0],
      ],
    );
    await cli('sbom', 'upload', '--org', 'acme', '--sku', 'RTR-100', ROUTER);
    await cli('sbom', 'upload', '--org', 'acme', '--sku', 'RTR-200', ROUTER);
    server = await startServer({ ...env, LOG_LEVEL: 'warn' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: WIDTH, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
    await acceptInvitation(page, (...args) => cli(...args), 'acme', 'ana@example.com', 'analyst');
    await page.getByRole('link', { name: /continue/ }).click();
    await page.waitForURL('**/console/o/acme/today');
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await drop?.();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Today shows the exploited salt finding above the signals, and leads to the filtered list', async () => {
    const exploited = page.locator('section#exploited');
    await exploited.getByRole('link', { name: SALT }).first().waitFor();
    const order = await page.evaluate(() => {
      const headings = [...document.querySelectorAll('main h2')].map((h) => h.id);
      return [headings.indexOf('exploited-title'), headings.indexOf('signals-title')];
    });
    assert.ok(order[0]! >= 0 && order[0]! < order[1]!, 'above the signals');
    await page.locator('section[aria-labelledby="signals-title"]').getByText(SALT).first().waitFor();
    await fits('today');
    await checkA11y(page, 'today');
    await shoot(page, 'vulnerabilities-today');

    await exploited.getByRole('link', { name: /^All \d+ on the Vulnerabilities page$/ }).click();
    await page.waitForURL(/\/vulnerabilities\?state=open&exploited=yes&market=1$/);
    assert.equal(await page.getByLabel('Exploited').inputValue(), 'yes');
    const ids = await page.locator('#findings tbody td.vuln > a').allTextContents();
    assert.ok(ids.length > 0 && ids.includes(SALT), ids.join(' '));
    assert.equal(await page.locator('#findings tbody tr:not(.exploited)').count(), 0, 'only exploited findings');
  });

  it('the Vulnerabilities page filters by product and severity, fits the window, keyboard and axe clean', async () => {
    await page.goto(url('/vulnerabilities'));
    const all = Number(/^(\d+) findings/.exec((await page.locator('#findings caption').textContent()) ?? '')?.[1]);
    assert.ok(all >= 4, `${all} findings`);
    await fits('vulnerabilities');
    await checkA11y(page, 'vulnerabilities');
    await shoot(page, 'vulnerabilities');

    await page.getByLabel('Product', { exact: true }).selectOption('RTR-100');
    await page.getByLabel('Severity (CVSS)').selectOption('high');
    // The filter form by keyboard: Enter in the release field submits it.
    await page.getByLabel('Release').fill('2.5.0');
    await page.getByLabel('Release').press('Enter');
    await page.waitForURL(/product=RTR-100/);
    const query = new URL(page.url()).searchParams;
    assert.deepEqual([query.get('product'), query.get('release'), query.get('severity')], ['RTR-100', '2.5.0', 'high']);
    const products = await page.locator('#findings tbody tr td:nth-child(3)').allTextContents();
    assert.ok(products.length > 0 && products.every((p) => p === 'RTR-100'), products.join(' '));
    const scores = (await page.locator('#findings tbody tr td:nth-child(7)').allTextContents()).map((s) => Number.parseFloat(s));
    // salt's CVE-2023-20898 (CVSS 7.8); most of the real records carry no CVSS vector at all.
    assert.ok(scores.length > 0 && scores.every((s) => s >= 7 && s < 9), `high only: ${scores}`);
    await checkA11y(page, 'vulnerabilities filtered');
  });

  it("an analyst analyses gin's vulnerability for all products; errors stand beside their fields", async () => {
    await page.goto(url('/vulnerabilities?product=RTR-100'));
    await page.locator('#findings tbody').getByRole('link', { name: GIN }).click();
    await page.getByRole('heading', { level: 1, name: GIN }).waitFor();
    await fits('vulnerability');
    await checkA11y(page, 'vulnerability');

    // A justification with a state it does not fit: refused beside the field, nothing saved.
    await page.getByLabel('State').selectOption('exploitable');
    await page.getByLabel('Justification (why not affected)').selectOption('code_not_reachable');
    await page.getByRole('button', { name: 'Save the analysis' }).click();
    await page
      .locator('#justification-error')
      .getByText(/choose the state not affected/)
      .waitFor();
    assert.equal(await page.getByLabel('Justification (why not affected)').getAttribute('aria-invalid'), 'true');
    await checkA11y(page, 'vulnerability with errors');

    await page.getByLabel('State').selectOption('not_affected');
    await page.getByLabel(/Apply to all products that have it \(2\)/).check();
    await page.getByLabel('workaround available').check();
    await page.getByLabel('Detail').fill('the logger is never used');
    await page.getByRole('button', { name: 'Save the analysis' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Analysis saved for 2 products.').waitFor();
    const states = await page.locator('table.findings tbody td.state').allTextContents();
    assert.deepEqual(
      states.map((s) => s.trim()),
      ['not affectedcode not reachable', 'not affectedcode not reachable'],
    );
    await shoot(page, 'vulnerability');
  });

  it('the product page: coverage, findings per release, a VEX downloaded', async () => {
    await page.goto(url('/products/RTR-100'));
    const section = page.locator('section#vulnerabilities');
    await section.getByText('Not matchable').waitFor();
    assert.match((await section.locator('#coverage').textContent()) ?? '', /4 in the latest revisions[\s\S]*Matchable3/);
    await fits('product');
    await checkA11y(page, 'product');
    await shoot(page, 'product-vulnerabilities');

    const [file] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('link', { name: 'OpenVEX of release 2.5.0' }).click(),
    ]);
    assert.equal(file.suggestedFilename(), 'RTR-100-2.5.0.openvex.json');
    const vex = JSON.parse(await readFile((await file.path())!, 'utf8'));
    assert.equal(vex['@context'], 'https://openvex.dev/ns/v0.2.0');
    const gin = vex.statements.find((s: { vulnerability: { name: string } }) => s.vulnerability.name === GIN);
    assert.equal(gin.status, 'not_affected');
    assert.equal(gin.justification, 'vulnerable_code_not_in_execute_path');
    const [cdx] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('link', { name: 'CycloneDX VEX of release 2.5.0' }).click(),
    ]);
    assert.equal(cdx.suggestedFilename(), 'RTR-100-2.5.0.vex.cdx.json');
    assert.equal(JSON.parse(await readFile((await cdx.path())!, 'utf8')).bomFormat, 'CycloneDX');
  });

  it('the case of the exploited signal proposes release 2.6.0, which dropped salt, as the fix', async () => {
    const signals = (await cli('signal', 'list', '--org', 'acme', '--json')).json() as Array<{
      incident_number: number;
      cve: string | null;
      product_sku: string;
    }>;
    const salt = signals.find((s) => s.cve === SALT && s.product_sku === 'RTR-100')!;
    await cli('case', 'open', '--org', 'acme', '--signal', String(salt.incident_number), '--notifiable', '--kind', 'vulnerability');
    const router = JSON.parse(readFileSync(ROUTER, 'utf8'));
    router.serialNumber = 'urn:uuid:2b7e1516-28ae-4d2a-8f1e-000000000260';
    router.metadata.component.version = '2.6.0';
    router.components = router.components.filter((c: { name: string }) => c.name !== 'salt');
    const next = join(dir, 'router-2.6.0.cdx.json');
    writeFileSync(next, JSON.stringify(router));
    await cli('sbom', 'upload', '--org', 'acme', '--sku', 'RTR-100', next);

    await page.goto(url(`/cases/${salt.incident_number}`));
    const proposal = page.locator('#fix-proposal');
    await proposal.getByText(/release 2\.6\.0, whose SBOM came .* no longer contains salt 3000\.1/).waitFor();
    assert.match(await page.getByLabel('Available since (UTC, empty for now)').inputValue(), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    assert.equal(
      await page.getByLabel('What the measure is (optional)').inputValue(),
      `Release 2.6.0 no longer contains salt 3000.1 (${SALT})`,
    );
    await fits('case');
    await checkA11y(page, 'case with a proposed fix');
    await shoot(page, 'case-fix-proposal');
    await page.getByRole('button', { name: 'Record the measure' }).click();
    await page
      .locator('#measures dd')
      .getByText(/^available since/)
      .waitFor();
    assert.equal(await proposal.count(), 0);
  });

  it('the Feeds page, for an owner: each feed, EPSS and EU KEV never imported, how to import', async () => {
    const context = await browser.newContext({ viewport: { width: WIDTH, height: 800 } });
    const owner = await context.newPage();
    await acceptInvitation(owner, (...args) => cli(...args), 'acme', 'olga@example.com', 'owner');
    await owner.getByRole('link', { name: /continue/ }).click();
    await owner.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Feeds' }).click();
    await owner.getByRole('heading', { name: 'Vulnerability feeds' }).waitFor();
    const stale = owner.locator('#stale');
    await stale.getByText('eu-kev: never imported').waitFor();
    await stale.getByText('epss: never imported').waitFor();
    assert.equal(await stale.getByText(/^osv:/).count(), 0);
    await owner.getByText('npx cra-admin vuln import', { exact: false }).first().waitFor();
    const fit = await owner.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(fit <= WIDTH, `feeds: ${fit} px`);
    await checkA11y(owner, 'feeds');
    await shoot(owner, 'feeds');
    // The analyst sees no Feeds entry and is refused the page.
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Feeds' }).count(), 0);
    const refused = await page.goto(url('/feeds'));
    assert.equal(refused?.status(), 403);
    await context.close();
  });
});
