// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { totpCode } from '../../src/users/totp.js';
import { browserSkip as skip, checkA11y, launchChromium, shoot } from '../helpers/browser.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { PASSWORD } from '../helpers/console.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';

const sh = promisify(execFile);

/** The JSON documents curl printed one after another (without newlines between them). */
function jsonValues(text: string): any[] {
  const values: any[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if ((c === '}' || c === ']') && --depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
  }
  return values;
}

// The first minute of a new instance (issue 28), in Debian's Chromium against the real server on
// a fresh database: the set-up link taken from the server's own output, the organisation and its
// owner created, the authenticator enrolled, Today reached with its first steps, an API key made
// with the page's button and used with curl exactly as the page says; the link refused the second
// time and cra-admin setup-link refused once a user exists. axe-core checks every page.
describe('first run in a real browser', { skip }, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  let setupUrl: string;

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    server = await startServer(env);
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await drop?.();
  });

  it('prints the set-up link where the server started; without it the console says only that', async () => {
    const banner = server
      .logs()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { setup_url?: string })
      .find((line) => line.setup_url);
    assert.ok(banner?.setup_url, server.logs());
    setupUrl = banner.setup_url;
    await page.goto(`${server.url}/console`);
    await page.getByText('This instance is not set up yet: use the link printed where the server started.').waitFor();
    assert.equal(await page.locator('form').count(), 0);
    await checkA11y(page, 'not set up');
  });

  it('creates the organisation and its owner, enrols the authenticator and lands on Today', async () => {
    await page.goto(setupUrl);
    await page.getByRole('heading', { name: 'Set up this instance' }).waitFor();
    await checkA11y(page, 'set-up');
    await shoot(page, 'setup');
    await page.getByLabel('Organisation name').fill('Acme Devices GmbH');
    await page.getByLabel('Your e-mail').fill('owner@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill(`${PASSWORD}?`);
    await page.getByRole('button', { name: 'Create the organisation and my account' }).click();
    await page.getByText('The two passwords differ.').waitFor();
    await checkA11y(page, 'set-up with an error');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create the organisation and my account' }).click();

    await page.waitForURL('**/console/enrol');
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    await page.getByLabel('Code shown by the app').fill(totpCode(secret, new Date()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#recovery-codes').waitFor();
    await page.getByRole('link', { name: /continue/ }).click();
    await page.waitForURL('**/console/o/acme-devices-gmbh/today');
    await page.getByRole('heading', { name: 'Today in Acme Devices GmbH' }).waitFor();
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    await checkA11y(page, 'today, first steps');
    await shoot(page, 'today-first-steps');
  });

  it('teaches on the empty Products and Signals pages', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Products' }).click();
    await page.getByRole('heading', { name: 'No product yet' }).waitFor();
    await checkA11y(page, 'products, empty');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Signals' }).click();
    await page.getByRole('heading', { name: 'No signal yet' }).waitFor();
    assert.match(
      (await page.locator('#step-signal').textContent())!,
      new RegExp(`^curl -fsS -X POST "${server.url}/api/v1/external/incidents"`),
    );
    await checkA11y(page, 'signals, empty');
  });

  it('creates a key for the ERP system with one button; the commands the page shows work with curl', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Today' }).click();
    await page.locator('#get-started').getByRole('link', { name: 'Create a key' }).click();
    await page.getByRole('heading', { name: 'No key yet' }).waitFor();
    await checkA11y(page, 'keys, empty');
    await shoot(page, 'keys-empty');
    await page.getByRole('button', { name: 'Create a key for your ERP system' }).click();
    await page.getByRole('heading', { name: 'Key “erp” created' }).waitFor();
    await page.getByRole('button', { name: 'Copy the commands that use erp' }).waitFor();
    await checkA11y(page, 'key created, with its use');
    await shoot(page, 'key-usage');

    const commands = (await page.locator('#key-usage').textContent())!;
    const { stdout } = await sh('sh', ['-ec', commands], { cwd: REPO_ROOT, timeout: 20_000 });
    const answers = jsonValues(stdout);
    assert.equal(answers.length, 3, stdout);
    assert.deepEqual(answers[0], { products: [], count: 0 });
    assert.equal(typeof answers[1].cra_health_score, 'number');
    assert.equal(answers[2].incident_number, 1);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Signals' }).click();
    await page.getByRole('heading', { name: /^#1 / }).waitFor();
  });

  it('refuses the set-up link a second time, and cra-admin setup-link once a user exists', async () => {
    const other = await (await browser.newContext()).newPage();
    const answer = await other.goto(setupUrl);
    assert.equal(answer?.status(), 409);
    await other.getByText('This instance is already set up').waitFor();
    await checkA11y(other, 'set-up link used');
    await other.goto(`${server.url}/console`);
    await other.waitForURL('**/console/sign-in?next=*');
    const cli = await runCli(['setup-link'], env);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /already set up/);
  });
});
