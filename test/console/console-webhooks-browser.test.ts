// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { acceptInvitationIn, browserSkip, checkA11y, launchChromium, shoot } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// The webhook pages in Chromium against the real server process: an owner adds an endpoint that
// points at a real receiver on 127.0.0.1, copies the secret shown once, an incident posted to the
// API opens a case, the server's dispatcher delivers the signed case.opened, and the delivery log
// shows it. axe-core checks each page; screenshots go to test-artifacts/console/.
describe('the webhook pages in a real browser', { skip: browserSkip }, () => {
  let server: RunningServer;
  let browser: Browser;
  let receiver: Receiver;
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  let intakeKey: string;

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true' };
    await runCli(['org', 'create', 'acme', '--name', 'Acme Devices GmbH', '--intake-mode', 'case'], env);
    intakeKey = (await runCli(['key', 'create', '--org', 'acme', '--name', 'intake', '--scopes', 'incidents:write', '--json'], env)).json()
      .secret;
    receiver = await startReceiver();
    server = await startServer({ ...env, LOG_LEVEL: 'warn', WEBHOOK_POLL_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    await drop?.();
  });

  it('adds an endpoint, shows its secret once with a copy button, and logs the signed delivery of a real event', async () => {
    const invite = await runCli(['user', 'invite', '--org', 'acme', '--email', 'wh@example.com', '--role', 'owner', '--json'], {
      ...env,
      PUBLIC_URL: server.url,
    });
    assert.equal(invite.code, 0, invite.stderr);
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    await acceptInvitationIn(page, invite.json().url);
    await page.waitForURL('**/console/o/acme/today');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL('**/console/o/acme/webhooks');
    await page.getByText('No endpoint yet.').waitFor();
    await checkA11y(page, 'webhooks (empty)');

    await page.getByLabel('Receiver URL').fill('ftp://hooks.example.com/cra');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.locator('#url-error').getByText('an endpoint URL must use https').waitFor();
    await checkA11y(page, 'webhooks (refused URL)');
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByLabel('case.opened').check();
    await page.getByLabel('case.closed').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint added' }).waitFor();
    const secret = (await page.locator('#webhook-secret').textContent())!.trim();
    assert.match(secret, /^whsec_/);
    await page.getByRole('button', { name: 'Copy the signing secret' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret, 'the copy button copies the secret');
    await checkA11y(page, 'webhook secret');
    await shoot(page, 'webhook-secret');
    receiver.secret = secret;

    const posted = await fetch(`${server.url}/api/v1/external/incidents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': intakeKey },
      body: JSON.stringify({ description: 'the gateway reboots under load' }),
    });
    assert.equal(posted.status, 201);
    await receiver.waitFor(1);
    assert.equal(receiver.received[0]!.verified, true, 'signed with the secret the page showed');
    assert.equal(JSON.parse(receiver.received[0]!.body).type, 'case.opened');

    await page.getByRole('link', { name: 'Go to the endpoint and its delivery log' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    const log = page.locator('#deliveries');
    for (let i = 0; i < 50 && !(await log.getByText('succeeded').isVisible()); i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    await log.getByText('succeeded').waitFor();
    await log.getByText('case.opened', { exact: true }).waitFor();
    await log.locator('summary').first().click();
    await log.getByText(/HTTP 200, \d+ ms/).waitFor();
    await checkA11y(page, 'webhook delivery log');
    await shoot(page, 'webhook-log');

    await page.getByRole('link', { name: 'All endpoints' }).click();
    await page.getByRole('link', { name: receiver.url }).waitFor();
    await checkA11y(page, 'webhooks (one endpoint)');
    await shoot(page, 'webhooks');
    await context.close();
  });
});
