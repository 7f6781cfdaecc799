import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';
import { totpCode } from '../../src/users/totp.js';
import type { CliResult } from './cli.js';
import { REPO_ROOT } from './cli.js';
import { PASSWORD } from './console.js';
import { TEST_BACKEND } from './db.js';

// What the console's browser tests share: Debian's Chromium, launched without the network
// features that would reach outside 127.0.0.1; axe-core; screenshots as artefacts; an invitation
// accepted through the real pages.

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = `${REPO_ROOT}test-artifacts/console`;

/** The `skip` option of a browser suite: it needs Chromium and runs once, in the SQLite pass. */
export const browserSkip = !existsSync(CHROMIUM)
  ? 'skipped: /usr/bin/chromium is missing (apt-get install chromium; CI installs it)'
  : TEST_BACKEND !== 'sqlite'
    ? 'runs once, in the SQLite pass'
    : false;

export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** No serious or critical accessibility violation on the page as it stands. */
export async function checkA11y(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `axe on ${name}`,
  );
}

/** A full-page screenshot kept in test-artifacts/console/<name>.png. */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

/** Opens an invitation link, chooses the password and enrols the authenticator; stops on the recovery codes page. */
async function enrolThrough(page: Page, url: string): Promise<{ secret: string; codes: string[] }> {
  await page.goto(url);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL('**/console/enrol');
  const secret = (await page.locator('#totp-secret').textContent())!.trim();
  await page.getByLabel('Code shown by the app').fill(totpCode(secret, new Date()));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.locator('#recovery-codes').waitFor();
  return { secret, codes: await page.locator('#recovery-codes li').allTextContents() };
}

/** Accepts an invitation link through enrolment and leaves the recovery codes page. */
export async function acceptInvitationIn(page: Page, url: string): Promise<{ secret: string }> {
  const { secret } = await enrolThrough(page, url);
  await page.getByRole('link', { name: /continue/ }).click();
  return { secret };
}

/**
 * Invites `email` with `cra-admin user invite`, opens the link, chooses the password and enrols
 * the authenticator; returns the TOTP secret and the recovery codes.
 */
export async function acceptInvitation(
  page: Page,
  cli: (...args: string[]) => Promise<CliResult>,
  org: string,
  email: string,
  role: string,
): Promise<{ secret: string; codes: string[] }> {
  const invite = await cli('user', 'invite', '--org', org, '--email', email, '--role', role, '--json');
  assert.equal(invite.code, 0, invite.stderr);
  return enrolThrough(page, invite.json().url);
}
