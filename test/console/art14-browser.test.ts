// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { acceptInvitation, browserSkip, checkA11y, launchChromium, shoot } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { csafErrors } from '../helpers/csaf.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';

// Article 14 as people do it, in Chromium against the real server process: the owner enters the
// organisation's data; an analyst triages three signals (dismiss, open a case, merge a
// duplicate) and takes the case through every stage: early warning, notification, an
// intermediate report the CSIRT asked for, the corrective measure, the final report; downloads
// the report text, the CSAF advisory (checked against the CSAF 2.0 schema) and the evidence
// bundle (checked with `cra-admin registry verify`), and closes the case. The server runs on the
// real clock, so every time is typed explicitly in the past, relative to now.

const H = 3_600_000;
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 16);

describe('Article 14 in a real browser', { skip: browserSkip }, () => {
  let server: RunningServer;
  let browser: Browser;
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  let intakeKey: string;
  const cli = (...args: string[]) => runCli(args, { ...env, PUBLIC_URL: server.url });

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    await runCli(['org', 'create', 'acme', '--name', 'Acme Devices GmbH'], env);
    await runCli(['product', 'add', '--org', 'acme', '--sku', 'RTR-100', '--name', 'Router 100', '--firmware-version', '4.2.0'], env);
    intakeKey = (await runCli(['key', 'create', '--org', 'acme', '--name', 'intake', '--scopes', 'incidents:write', '--json'], env)).json()
      .secret;
    server = await startServer({ ...env, LOG_LEVEL: 'warn' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await drop?.();
  });

  /** Clicks a download link and returns the downloaded file's text. */
  async function download(page: Page, link: string): Promise<{ name: string; text: string }> {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: link }).click()]);
    return { name: file.suggestedFilename(), text: await readFile((await file.path())!, 'utf8') };
  }

  /** Saves the draft shown, then records its filing with the SRP reference and time. */
  async function fileReport(page: Page, reference: string, at: number): Promise<string> {
    await page.getByRole('button', { name: 'Save the draft' }).click();
    await page.getByText('Draft saved.').waitFor();
    await page.getByText('Every required field is filled in').waitFor();
    await page.getByLabel('SRP reference').fill(reference);
    await page.getByLabel('Submitted at (UTC, empty for now)').fill(utc(at));
    await page.getByRole('button', { name: 'File the report' }).click();
    await page.getByRole('heading', { name: 'As filed (frozen)' }).waitFor();
    return (await page.locator('#content-sha256').textContent())!;
  }

  it('organisation data, triage, every stage, advisory, evidence, close', async () => {
    // The owner enters what every report names about the manufacturer, and where the product is sold.
    const ownerContext = await browser.newContext();
    const owner = await ownerContext.newPage();
    await acceptInvitation(owner, cli, 'acme', 'olga@example.com', 'owner');
    await owner.goto(`${server.url}/console/o/acme/organisation`);
    await owner.getByLabel('Legal name').fill('Acme Devices GmbH');
    await owner.getByLabel('Postal address').fill('Hauptstraße 1, 10115 Berlin');
    await owner.getByLabel('Security contact e-mail').fill('psirt@acme.example');
    await owner.getByLabel('Member State of main establishment').selectOption('DE');
    await owner.getByRole('button', { name: 'Save', exact: true }).click();
    await owner.getByText('Saved.').waitFor();
    await checkA11y(owner, 'organisation');
    await shoot(owner, 'organisation');
    await owner.goto(`${server.url}/console/o/acme/products/RTR-100/edit`);
    await owner.getByLabel(/Member States where it is made available/).fill('DE, FR, NL');
    await owner.getByRole('button', { name: 'Save', exact: true }).click();
    await owner.getByText('DE, FR, NL').waitFor();
    await ownerContext.close();

    for (const body of [
      {
        sku: 'RTR-100',
        title: 'Remote code execution in the web UI',
        description: 'A crafted request runs commands as root.',
        cve: 'CVE-2026-4242',
      },
      { sku: 'RTR-100', title: 'Same RCE, reported again', description: 'Root shell through /cgi-bin/admin.' },
      { title: 'Newsletter', description: 'Please subscribe to our newsletter.' },
    ]) {
      const r = await fetch(`${server.url}/api/v1/external/incidents`, {
        method: 'POST',
        headers: { 'X-CRA-API-Key': intakeKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(r.status, 201);
    }

    const context = await browser.newContext();
    const page = await context.newPage();
    await acceptInvitation(page, cli, 'acme', 'ana@example.com', 'analyst');
    await page.goto(`${server.url}/console/o/acme/signals`);
    await checkA11y(page, 'signals with triage');
    await shoot(page, 'signals-triage');

    // Triage: dismiss #3 with a reason; #1 becomes a case (aware 66 hours ago); #2 is merged into it.
    const signal = (n: number) => page.locator('article', { has: page.locator(`#signal-${n}`) });
    await signal(3).getByText('Other triage: dismiss, merge, attribute').click();
    await page.locator('#dismiss-3').fill('Not a security report');
    await page.getByRole('button', { name: 'Dismiss #3' }).click();
    await page.getByRole('heading', { name: '#1 Remote code execution in the web UI' }).waitFor();
    assert.equal(await page.locator('#signal-3').count(), 0);

    const awareAt = Math.floor((Date.now() - 66 * H) / 60_000) * 60_000;
    await page.locator('#kind-1').selectOption('vulnerability');
    await page.locator('#notifiable-1').check();
    await page.locator('#aware-1').fill(utc(awareAt));
    await page.getByRole('button', { name: 'Open a case for #1' }).click();
    await page.waitForURL('**/console/o/acme/cases/1');
    await page.locator('.state-overdue').first().waitFor();

    await page.goto(`${server.url}/console/o/acme/signals`);
    await signal(2).getByText('Other triage: dismiss, merge, attribute').click();
    await page.locator('#into-2').fill('1');
    await page.getByRole('button', { name: 'Merge #2 into the case' }).click();
    await page.getByText('No signal here.').waitFor();

    // Early warning: everything is pre-filled; filed 2 hours after awareness.
    await page.goto(`${server.url}/console/o/acme/cases/1`);
    await checkA11y(page, 'case with stages');
    await shoot(page, 'case-stages');
    await page.getByRole('link', { name: 'Draft of the Early warning (24 h)' }).click();
    await page.getByRole('heading', { name: 'Early warning (24 h)' }).waitFor();
    assert.equal(await page.getByLabel(/Manufacturer: legal name/).inputValue(), 'Acme Devices GmbH');
    assert.equal(await page.getByLabel(/Member States where the product is made available/).inputValue(), 'DE, FR, NL');
    assert.equal(await page.getByLabel(/CVE \/ EUVD identifiers/).inputValue(), 'CVE-2026-4242');
    await checkA11y(page, 'early warning draft');
    await shoot(page, 'report-draft');
    const ewSha = await fileReport(page, 'SRP-EW-77', awareAt + 2 * H);
    assert.match(ewSha, /^[0-9a-f]{64}$/);
    await checkA11y(page, 'filed report');
    await shoot(page, 'report-filed');
    const text = await download(page, 'Download as plain text');
    assert.equal(text.name, 'case-1-early-warning.txt');
    assert.match(text.text, /^Early warning — case 1 \(CRA Article 14\)\nTo: the CSIRT designated as coordinator of DE, and ENISA\n/);
    assert.match(text.text, /SRP reference SRP-EW-77/);

    // Notification: what the early warning did not need; the missing fields are named first.
    await page.getByRole('link', { name: /← Case #1/ }).click();
    await page.getByRole('link', { name: 'Draft of the Vulnerability notification (72 h)' }).click();
    await page.getByRole('link', { name: 'General nature of the exploit and of the vulnerability' }).waitFor();
    await page.getByLabel(/General nature of the exploit/).fill('Command injection in the CGI admin handler.');
    await page.getByLabel(/Corrective or mitigating measures taken/).fill('Input validation added; fixed build in QA.');
    await page
      .getByLabel(/Corrective or mitigating measures users can take/)
      .fill('Disable remote administration until 4.2.1 is installed.');
    await page.getByLabel(/Sensitivity of the information/).selectOption('AMBER');
    await fileReport(page, 'SRP-N-77', awareAt + 30 * H);

    // The CSIRT asks for an intermediate report; it is filed on time.
    await page.getByRole('link', { name: /← Case #1/ }).click();
    await page.getByLabel('Due (UTC, as the CSIRT set it)').fill(utc(awareAt + 48 * H));
    await page.getByRole('button', { name: 'Record the request' }).click();
    await page.getByRole('link', { name: 'Draft of the Intermediate report 1 (asked by the CSIRT)' }).click();
    await page.getByLabel(/Status update/).fill('Fix in final testing; no further exploitation seen.');
    await fileReport(page, 'SRP-I-77', awareAt + 40 * H);

    // The corrective measure: the final report's clock starts (14 days).
    await page.getByRole('link', { name: /← Case #1/ }).click();
    const closeEarly = page.getByRole('button', { name: 'Close the case' });
    await page.getByLabel('Available since (UTC, empty for now)').fill(utc(awareAt + 50 * H));
    await page.getByLabel('What the measure is (optional)').fill('Firmware 4.2.1');
    await page.getByRole('button', { name: 'Record the measure' }).click();
    await page.getByText(/^available since /).waitFor();
    await closeEarly.click();
    await page.getByText(/cannot close: not yet filed: final report \(pending, due /).waitFor();

    await page.getByRole('link', { name: 'Draft of the Final report (14 days after the corrective measure)' }).click();
    assert.equal(await page.getByLabel(/Security update or other corrective measure made available/).inputValue(), 'Firmware 4.2.1');
    await page.getByLabel(/Detailed description/).fill('An unauthenticated request to /cgi-bin/admin ran shell commands.');
    await page.getByLabel(/^Severity/).fill('Critical (CVSS 9.8)');
    await page.getByLabel(/^Impact/).fill('Full takeover of the router.');
    await fileReport(page, 'SRP-F-77', awareAt + 60 * H);

    // 14(8): the advisory for users, valid CSAF 2.0; the evidence bundle, checkable against the registry.
    await page.getByRole('link', { name: /← Case #1/ }).click();
    const csaf = await download(page, 'Download the CSAF 2.0 advisory');
    assert.equal(csaf.name, 'case-1-csaf.json');
    const advisory = JSON.parse(csaf.text);
    assert.deepEqual(await csafErrors(advisory), []);
    assert.match(JSON.stringify(advisory), /Disable remote administration until 4\.2\.1 is installed\./);
    const evidence = JSON.parse((await download(page, 'Download the evidence bundle')).text);
    assert.deepEqual(evidence.reports.map((r: { stage: string; srp_reference: string }) => `${r.stage} ${r.srp_reference}`).sort(), [
      'early_warning SRP-EW-77',
      'final SRP-F-77',
      'intermediate SRP-I-77',
      'notification SRP-N-77',
    ]);
    assert.equal(evidence.reports.find((r: { stage: string }) => r.stage === 'early_warning').content_sha256, ewSha);
    assert.equal(evidence.registry.verification.ok, true);
    const verified = await cli('registry', 'verify', '--org', 'acme', '--json');
    assert.equal(verified.code, 0, verified.stderr);
    assert.equal(verified.json().ok, true);
    assert.equal(verified.json().entries, evidence.registry.chain_head.seq, 'the bundle names the head that registry verify walks to');

    await page.getByLabel('Add a note').fill('CSIRT DE called; no customer data affected.');
    await page.getByRole('button', { name: 'Add the note' }).click();
    await page.getByText(/no customer data affected/).waitFor();
    await page.getByRole('button', { name: 'Close the case' }).click();
    await page.getByText(/^closed since /).waitFor();
    for (const state of await page.locator('#deadlines .state').allTextContents()) assert.equal(state, 'met');
    await checkA11y(page, 'closed case');
    await shoot(page, 'case-closed');
    await context.close();
  });
});
