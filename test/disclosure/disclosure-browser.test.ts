// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { acceptInvitation, browserSkip, checkA11y, launchChromium, shoot } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { assertNoErrorLogged, type RunningServer, startServer } from '../helpers/server.js';

// Disclosure as people use it, in Chromium against the real server process, one browser for
// all: a researcher without an account reads the policy, sends a report with two attachments,
// keeps the link; an analyst signs in, reads the reporter, downloads the attachments (the same
// bytes), answers and opens a case; the researcher reads the answer; a viewer sees no identity.
// axe-core checks every public page.

const PCAP = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 256));
const POC = Buffer.from('#!/bin/sh\ncurl -u admin: http://camera/rtsp\n');

describe('disclosure in a real browser', { skip: browserSkip }, () => {
  let server: RunningServer;
  let browser: Browser;
  let env: Record<string, string>;
  let drop: () => Promise<void>;

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    const ok = async (...args: string[]) => {
      const result = await runCli(args, env);
      assert.equal(result.code, 0, result.stderr);
      return result;
    };
    await ok('org', 'create', 'acme', '--name', 'Acme Devices GmbH');
    await ok('product', 'add', '--org', 'acme', '--sku', 'CAM-9', '--name', 'Camera 9');
    await ok('disclosure', 'enable', '--org', 'acme', '--acknowledge-days', '3');
    // Every request is logged (info), so the test can show what the log never holds.
    server = await startServer({ ...env, LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    env.PUBLIC_URL = server.url;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await drop?.();
  });

  it('takes a report from a researcher, and the team answers it from the console', async () => {
    const researcher = await (await browser.newContext()).newPage();
    const missing = await researcher.goto(`${server.url}/disclose/nobody`);
    assert.equal(missing!.status(), 404);
    await checkA11y(researcher, 'disclosure 404');

    await researcher.goto(`${server.url}/disclose/acme`);
    await researcher.getByText('We acknowledge reports within 3 days').waitFor();
    await checkA11y(researcher, 'disclosure policy');
    await researcher.getByRole('link', { name: 'Report a vulnerability' }).click();
    await researcher.waitForURL('**/disclose/acme/report');
    await checkA11y(researcher, 'report form');
    await researcher.getByLabel('Product').selectOption({ label: 'Camera 9' });
    await researcher.getByLabel('Title').fill('RTSP accepts an empty password');
    await researcher.getByLabel('Description (required)').fill('Any password opens the RTSP stream of the camera.');
    await researcher.getByLabel('Affected versions').fill('2.0 to 2.3');
    await researcher.getByLabel('Your name').fill('Grace Prober');
    await researcher.getByLabel('How to reach you (e-mail or other)').fill('grace@probe.example');
    await researcher.getByLabel(/^Attachments/).setInputFiles([
      { name: 'capture.pcap', mimeType: 'application/vnd.tcpdump.pcap', buffer: PCAP },
      { name: 'poc.sh', mimeType: 'text/x-sh', buffer: POC },
    ]);
    await researcher.getByRole('button', { name: 'Send the report' }).click();
    await researcher.getByRole('heading', { name: 'Report received' }).waitFor();
    await checkA11y(researcher, 'report received');
    await shoot(researcher, 'disclosure-received');
    const link = (await researcher.locator('#follow-link').textContent())!.trim();
    assert.match(link, new RegExp(`^${server.url}/disclose/acme/follow/[A-Za-z0-9_-]{43}$`));
    await researcher.goto(link);
    await researcher.getByText('Status: received').waitFor();
    await checkA11y(researcher, 'follow-up page');

    // The analyst: Signals → the conversation → the reporter, the attachments, an answer, a case.
    const analyst = await (await browser.newContext({ acceptDownloads: true })).newPage();
    await acceptInvitation(analyst, (...args) => runCli(args, env), 'acme', 'ana@acme.example', 'analyst');
    await analyst.getByRole('link', { name: /continue/ }).click();
    await analyst.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Disclosure' }).click();
    await analyst.getByText('Only owners and admins change these.').waitFor();
    await checkA11y(analyst, 'disclosure settings (analyst)');
    await analyst.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Signals' }).click();
    await analyst.getByRole('link', { name: 'Conversation with the reporter of #1' }).click();
    await analyst.waitForURL('**/signals/1/conversation');
    assert.equal(await analyst.getByText('Grace Prober').count(), 0, 'the identity stays behind the control');
    await analyst.getByRole('button', { name: 'Show the reporter' }).click();
    await analyst.locator('#reporter-identity').getByText('grace@probe.example').waitFor();
    await checkA11y(analyst, 'conversation (analyst)');
    for (const [name, bytes] of [
      ['capture.pcap', PCAP],
      ['poc.sh', POC],
    ] as const) {
      const [download] = await Promise.all([
        analyst.waitForEvent('download'),
        analyst.getByRole('link', { name: `Download ${name}` }).click(),
      ]);
      assert.equal(download.suggestedFilename(), name);
      assert.deepEqual(readFileSync((await download.path())!), bytes, `${name}: the bytes as sent`);
    }
    await analyst.getByLabel('Answer the reporter').fill('Reproduced. A fix ships in 2.4.');
    await analyst.getByRole('button', { name: 'Send the answer' }).click();
    await analyst.locator('.message-team').getByText('Reproduced. A fix ships in 2.4.').waitFor();
    await shoot(analyst, 'disclosure-conversation');
    await analyst.getByRole('link', { name: 'Back to the signals' }).click();
    await analyst.getByLabel('Notifiable (actively exploited vulnerability or severe incident: the 24 h and 72 h clocks start)').check();
    await analyst.getByRole('button', { name: 'Open a case for #1' }).click();
    await analyst.waitForURL('**/cases/1');
    await analyst.getByRole('heading', { name: 'Conversation with the reporter' }).waitFor();

    // The researcher reads the answer and the case, and answers back.
    await researcher.reload();
    await researcher.getByText('Status: case opened').waitFor();
    await researcher.getByText('Reproduced. A fix ships in 2.4.').waitFor();
    await researcher.getByLabel('Your message').fill('Thanks! I will wait for 2.4 before publishing.');
    await researcher.getByRole('button', { name: 'Send the message' }).click();
    await researcher.getByText('Your message was sent to the team.').waitFor();
    await checkA11y(researcher, 'follow-up page with messages');
    await shoot(researcher, 'disclosure-follow-up');
    await analyst.reload();
    await analyst.getByText('Thanks! I will wait for 2.4 before publishing.').waitFor();

    // A viewer: the conversation, never the identity or an attachment.
    const viewer = await (await browser.newContext()).newPage();
    await acceptInvitation(viewer, (...args) => runCli(args, env), 'acme', 'vic@acme.example', 'viewer');
    await viewer.goto(`${server.url}/console/o/acme/signals/1/conversation`);
    await viewer.getByText('Reproduced. A fix ships in 2.4.').waitFor();
    assert.equal(await viewer.getByRole('button', { name: 'Show the reporter' }).count(), 0);
    assert.equal(await viewer.getByRole('link', { name: /^Download/ }).count(), 0);
    const href = await analyst.getByRole('link', { name: 'Download poc.sh' }).getAttribute('href');
    const denied = await viewer.request.get(`${server.url}${href}`);
    assert.equal(denied.status(), 404);
    await viewer.context().close();

    // The request log names the follow-up page, never its token, and nothing of the reporter.
    const logs = server.logs();
    assert.match(logs, /\/disclose\/acme\/follow\/\[redacted\]/);
    for (const secret of [link.split('/').pop()!, 'grace@probe.example', 'Grace Prober'])
      assert.equal(logs.includes(secret), false, secret);
    assertNoErrorLogged(server);
    await (analyst as Page).context().close();
    await researcher.context().close();
  });
});
