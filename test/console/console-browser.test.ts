// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '../../src/users/totp.js';
import { acceptInvitation as accept, browserSkip as skip, checkA11y, launchChromium, shoot } from '../helpers/browser.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { PASSWORD } from '../helpers/console.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';

const NEW_PASSWORD = 'quiet-harbour-92-thistle';

// The console as people use it, in Debian's Chromium against the real server process: an
// invitation from cra-admin, password, authenticator enrolment, sign-in, API keys used against
// the API, roles, tenancy, CSRF and idle expiry. axe-core checks every page it visits; each main
// page is photographed into test-artifacts/console/.
describe('the console in a real browser', { skip }, () => {
  let server: RunningServer;
  let browser: Browser;
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  let owner: { context: BrowserContext; page: Page; codes: string[] };
  let intakeKey: string;

  const cli = (...args: string[]) => runCli(args, { ...env, PUBLIC_URL: server.url });

  const acceptInvitation = (page: Page, email: string, role: string) => accept(page, cli, 'acme', email, role);

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    await runCli(['org', 'create', 'acme', '--name', 'Acme Devices GmbH'], env);
    await runCli(['org', 'create', 'other', '--name', 'Other Corp'], env);
    await runCli(['product', 'add', '--org', 'acme', '--sku', 'DW-1', '--name', 'Dropwizard gateway', '--firmware-version', '1.3.15'], env);
    await runCli(['product', 'add', '--org', 'other', '--sku', 'OTHER-1', '--name', 'Other secret product'], env);
    await runCli(['product', 'add', '--org', 'acme', '--sku', 'RTR-100', '--name', 'Router 100'], env);
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

  it('invitation from cra-admin → password → authenticator enrolment → sign-in with a code', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const foreign: string[] = [];
    page.on('request', (r) => !r.url().startsWith(server.url) && !r.url().startsWith('data:') && foreign.push(r.url()));
    const { secret, codes } = await acceptInvitation(page, 'ana@example.com', 'owner');
    assert.equal(codes.length, 10);
    await checkA11y(page, 'recovery codes');
    await page.getByRole('link', { name: /continue/ }).click();
    await page.waitForURL('**/console/o/acme/today');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/console/sign-in');
    await checkA11y(page, 'sign-in');
    await shoot(page, 'sign-in');
    await page.getByLabel('E-mail').fill('ana@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Authentication code').fill('123456');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The e-mail, password or authentication code is not right.').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    // The enrolment used the current 30-second step; the next one is within the accepted drift.
    await page.getByLabel('Authentication code').fill(totpCode(secret, new Date(Date.now() + 30_000)));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/console/o/acme/today');
    await page.getByRole('heading', { name: 'Today in Acme Devices GmbH' }).waitFor();
    await checkA11y(page, 'today');
    await shoot(page, 'today');
    assert.deepEqual(foreign, [], 'nothing is loaded from another origin');

    const users = (await cli('user', 'list', '--json')).json();
    assert.deepEqual(
      users.map((u: { email: string; totp_enrolled: boolean }) => [u.email, u.totp_enrolled]),
      [['ana@example.com', true]],
    );
    owner = { context, page, codes };
  });

  it('an API key created in the console works against the API until it is revoked there', async () => {
    const { page } = owner;
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('erp');
    await page.getByLabel('products:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('#key-secret').textContent())!.trim();
    assert.match(secret, /^cra_[0-9A-Za-z]{36}$/);
    await page.getByRole('button', { name: /Copy the secret of erp/ }).waitFor();
    await checkA11y(page, 'key created');
    const api = () => fetch(`${server.url}/api/v1/external/products`, { headers: { 'X-CRA-API-Key': secret } });
    assert.equal((await api()).status, 200);

    await page.getByRole('link', { name: 'Back to the keys' }).click();
    await page.getByRole('row', { name: /erp/ }).getByText('products:read').waitFor();
    await checkA11y(page, 'keys');
    await shoot(page, 'keys');
    await page.getByRole('button', { name: 'Revoke erp' }).click();
    await page.getByText('The key is revoked').waitFor();
    assert.equal((await api()).status, 401);
  });

  it('uploads an SBOM and shows the revision with its components', async () => {
    const { page } = owner;
    await page.getByRole('link', { name: 'Products' }).click();
    await checkA11y(page, 'products');
    await shoot(page, 'products');
    await page.getByRole('link', { name: 'DW-1' }).click();
    await page.getByLabel(/SBOM file/).setInputFiles(`${REPO_ROOT}test/fixtures/sbom/cyclonedx/dropwizard-1.3.15-bom.json`);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('Stored as revision 1 of release 1.3.15: 167 components (cyclonedx 1.2).').waitFor();
    await checkA11y(page, 'product');
    await shoot(page, 'product');
    await page.getByRole('link', { name: 'revision 1', exact: true }).click();
    assert.equal(await page.locator('#components tbody tr').count(), 167);
    await page
      .getByRole('cell', { name: /^pkg:maven\/io\.dropwizard\/dropwizard-core@1\.3\.15/ })
      .first()
      .waitFor();
    await checkA11y(page, 'revision');
    await shoot(page, 'revision');
    // The revision's conformance report, a click away (sbom-conformance.md): CycloneDX 1.2 is below the floor.
    await page.getByRole('link', { name: /\(the report\)$/ }).click();
    await page.getByText(/^Does not conform to BSI TR-03183-2/).waitFor();
    assert.ok((await page.locator('table').nth(1).locator('tbody tr').count()) > 0);
    await checkA11y(page, 'conformance report');
    await shoot(page, 'conformance');
    await page.goto(`${server.url}/console/o/acme/products?conformance=not-conforming`);
    assert.equal(await page.getByRole('link', { name: 'DW-1', exact: true }).count(), 1);
    await checkA11y(page, 'products filtered by conformance');
    const other = await page.goto(`${server.url}/console/o/acme/products/OTHER-1`);
    assert.equal(other?.status(), 404);
    assert.equal(await page.getByText('Other secret product').count(), 0);
  });

  it('compares two SBOM revisions (in place with htmx) and finds a component across the products', async () => {
    const { page } = owner;
    // Revision 2 of DW-1's release: jackson-annotations upgraded, checker-compat-qual dropped, left-pad added.
    const doc = JSON.parse(readFileSync(`${REPO_ROOT}test/fixtures/sbom/cyclonedx/dropwizard-1.3.15-bom.json`, 'utf8'));
    doc.serialNumber = 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79';
    doc.components[0] = {
      ...doc.components[0],
      version: '2.9.11',
      purl: 'pkg:maven/com.fasterxml.jackson.core/jackson-annotations@2.9.11?type=jar',
    };
    const dropped = doc.components.splice(2, 1)[0];
    doc.dependencies = doc.dependencies.filter((d: { ref: string }) => d.ref !== dropped['bom-ref']);
    doc.components.push({ type: 'library', name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' });
    await page.goto(`${server.url}/console/o/acme/products/DW-1`);
    await page
      .getByLabel(/SBOM file/)
      .setInputFiles({ name: 'bom-2.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('Stored as revision 2 of release 1.3.15: 167 components').waitFor();

    await page.getByRole('link', { name: 'since revision 1 of release 1.3.15' }).click();
    await page.getByRole('heading', { name: 'Revision 1 → 2: 1 added, 1 removed, 1 changed in version' }).waitFor();
    await page.locator('#diff-added').getByRole('cell', { name: 'left-pad', exact: true }).waitFor();
    await page.locator('#diff-removed').getByRole('cell', { name: 'checker-compat-qual', exact: true }).waitFor();
    await page
      .locator('#diff-changed')
      .getByRole('row', { name: /jackson-annotations 2\.9\.10 2\.9\.11/ })
      .waitFor();
    await checkA11y(page, 'sbom diff');
    await shoot(page, 'sbom-diff');
    // A mark on the window survives only if the result is swapped in without loading a new page.
    await page.evaluate(() => Object.assign(window, { stillThisPage: true }));
    await page.getByLabel('From revision').selectOption('2');
    await page.getByLabel('To revision').selectOption('1');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('heading', { name: 'Revision 2 → 1: 1 added, 1 removed, 1 changed in version' }).waitFor();
    await page.locator('#diff-added').getByRole('cell', { name: 'checker-compat-qual', exact: true }).waitFor();
    assert.match(page.url(), /\/diff\?from=2&to=1$/, 'the address follows the choice');
    assert.equal(await page.evaluate(() => (window as unknown as { stillThisPage?: boolean }).stillThisPage), true, 'updated in place');

    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('link', { name: 'Find a component' }).click();
    await page.getByLabel('Name', { exact: true }).fill('jackson-annotations');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'jackson-annotations: in 2 revisions of 1 release of 1 product' }).waitFor();
    assert.deepEqual(await page.locator('#hits tbody tr td:nth-child(5)').allTextContents(), ['2.9.11', '2.9.10']);
    await checkA11y(page, 'component search');
    await shoot(page, 'components');
    await page.getByLabel('Package URL').fill('pkg:npm/left-pad@1.3.0');
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'package URL pkg:npm/left-pad@1.3.0: in 1 revision of 1 release of 1 product' }).waitFor();
    await page.locator('#hits').getByRole('link', { name: 'revision 2' }).click();
    await page.getByRole('cell', { name: 'pkg:npm/left-pad@1.3.0' }).waitFor();
  });

  it('verifies the activity registry in place (htmx), lists who did what, and shows the members', async () => {
    const { page } = owner;
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('cell', { name: 'user:ana@example.com' }).first().waitFor();
    const before = page.url();
    await page.getByRole('link', { name: 'Verify the chain' }).click();
    await page
      .locator('#verify-result #verification')
      .getByText(/^Chain intact: \d+ entries verified\.$/)
      .waitFor();
    assert.equal(page.url(), before, 'updated in place, no navigation');
    await checkA11y(page, 'activity');
    await shoot(page, 'activity');
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('cell', { name: 'ana@example.com', exact: true }).waitFor();
    await checkA11y(page, 'members');
    await shoot(page, 'members');
  });

  it('triage: a signal received by the API becomes a case; Today shows its running clock', async () => {
    const { page } = owner;
    for (const body of [
      {
        sku: 'RTR-100',
        title: 'Remote code execution in the web UI',
        description: 'A crafted request to /cgi-bin/admin runs commands as root.',
        cve: 'CVE-2026-12345',
      },
      { description: 'Default credentials on the debug port of an unknown device.' },
    ]) {
      const r = await fetch(`${server.url}/api/v1/external/incidents`, {
        method: 'POST',
        headers: { 'X-CRA-API-Key': intakeKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(r.status, 201);
    }
    await page.getByRole('link', { name: 'Signals' }).click();
    await page.getByRole('heading', { name: '#1 Remote code execution in the web UI' }).waitFor();
    await checkA11y(page, 'signals');
    await shoot(page, 'signals');
    await page.locator('#notifiable-1').check();
    await page.getByRole('button', { name: 'Open a case for #1' }).click();
    await page.waitForURL('**/console/o/acme/cases/1');
    await page.getByText('24 h 00 min left').or(page.getByText('23 h 59 min left')).waitFor();
    await checkA11y(page, 'case');
    await shoot(page, 'case');
    await page.getByRole('link', { name: 'Cases' }).click();
    await checkA11y(page, 'cases');
    await page.getByRole('link', { name: 'Today' }).click();
    await page.locator('#clocks .clock').first().waitFor();
    await checkA11y(page, 'today with a case');
    await shoot(page, 'today');
  });

  it('refuses a POST without the CSRF token, and a viewer’s change; another organisation answers 404', async () => {
    const refused = await owner.context.request.post(`${server.url}/console/o/acme/keys`, {
      form: { name: 'forged', scopes: 'products:read', expires: '' },
      maxRedirects: 0,
    });
    assert.equal(refused.status(), 403);
    const other = await owner.page.goto(`${server.url}/console/o/other/today`);
    assert.equal(other?.status(), 404);

    const context = await browser.newContext();
    const page = await context.newPage();
    await acceptInvitation(page, 'vic@example.com', 'viewer');
    await page.goto(`${server.url}/console/o/acme/keys`);
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0, 'no form for a viewer');
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const change = await context.request.post(`${server.url}/console/o/acme/keys`, {
      form: { _csrf: csrf, name: 'viewer-key', scopes: 'products:read', expires: '' },
    });
    assert.equal(change.status(), 403);
    assert.match(await change.text(), /does not allow this change/);
    await context.close();
  });

  it('changes a password: other sessions end; invited to a second organisation, signs in with it and switches between both', async () => {
    const first = await browser.newContext();
    const page = await first.newPage();
    const { secret, codes } = await acceptInvitation(page, 'pia@example.com', 'analyst');
    await page.getByRole('link', { name: /continue/ }).click();
    // A second browser, signed in with a recovery code (the enrolment used this step's TOTP code).
    const second = await browser.newContext();
    const other = await second.newPage();
    await other.goto(`${server.url}/console/sign-in`);
    await other.getByLabel('E-mail').fill('pia@example.com');
    await other.getByLabel('Password').fill(PASSWORD);
    await other.getByLabel('Authentication code').fill(codes[0]!.trim());
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.waitForURL('**/console/o/acme/today');

    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByRole('heading', { name: 'Change your password' }).waitFor();
    await checkA11y(page, 'account');
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill('password1234');
    await page.getByLabel('New password again').fill('password1234');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('This password is on a list of commonly used passwords; choose another.').waitFor();
    await checkA11y(page, 'account with an error');
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password is changed. Every other session of yours has ended; this one goes on.').waitFor();
    await checkA11y(page, 'account changed');
    await shoot(page, 'account');
    await other.reload();
    await other.waitForURL('**/console/sign-in?next=*');

    // Invited to a second organisation: the link offers signing in with the existing account (and,
    // to anyone else, choosing a password: it does not tell which the address has).
    await cli('org', 'create', 'beta', '--name', 'Beta Labs');
    const invite = (await cli('user', 'invite', '--org', 'beta', '--email', 'pia@example.com', '--role', 'viewer', '--json')).json();
    await other.goto(invite.url);
    await other.getByText('Already have an account on this console?').waitFor();
    await checkA11y(other, 'invitation');
    await other.getByRole('link', { name: 'Sign in as pia@example.com' }).click();
    await other.getByLabel('E-mail').fill('pia@example.com');
    await other.getByLabel('Password').fill(NEW_PASSWORD);
    await other.getByLabel('Authentication code').fill(totpCode(secret, new Date(Date.now() + 30_000)));
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('button', { name: 'Accept the invitation' }).click();
    await other.waitForURL('**/console/o/beta/today');
    const switcher = other.getByRole('navigation', { name: 'Organisations' });
    await switcher.getByRole('link', { name: 'Acme Devices GmbH' }).click();
    await other.waitForURL('**/console/o/acme/today');
    await other.getByText('pia@example.com · analyst of Acme Devices GmbH').waitFor();
    await checkA11y(other, 'today with the organisation switcher');
    await shoot(other, 'organisation-switcher');
    await first.close();
    await second.close();
  });

  it('ends a session left idle (a second instance on the same database, idle limit 3 s); a recovery code signs in', async () => {
    const short = await startServer({ ...env, LOG_LEVEL: 'warn', CONSOLE_IDLE_MINUTES: '0.05' });
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${short.url}/console/sign-in`);
      await page.getByLabel('E-mail').fill('ana@example.com');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByLabel('Authentication code').fill(owner.codes[0]!.trim());
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/console/o/acme/today');
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      await page.reload();
      await page.waitForURL('**/console/sign-in?next=*');
      await context.close();
    } finally {
      await short.stop();
    }
  });
});
