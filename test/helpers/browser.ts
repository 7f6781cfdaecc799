import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';
import { totpCode } from '../../src/console/auth/totp.js';
import { REPO_ROOT } from './cli.js';
import { PASSWORD } from './console.js';
import { TEST_BACKEND } from './db.js';

// Chromium steps shared by browser tests: launch Debian's Chromium, accept an invitation through
// enrolment, check a page with axe-core, keep a screenshot.

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = `${REPO_ROOT}test-artifacts/console`;

/** Why a browser test is skipped here, or false when it runs (once, in the SQLite pass). */
export function browserSkip(): string | false {
  if (!existsSync(CHROMIUM)) return 'skipped: /usr/bin/chromium is missing (apt-get install chromium; CI installs it)';
  return TEST_BACKEND !== 'sqlite' ? 'runs once, in the SQLite pass' : false;
}

export async function launchChromium(): Promise<Browser> {
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

/** Opens an invitation link, chooses the password, enrols the authenticator and leaves the recovery codes page. */
export async function acceptInvitationIn(page: Page, url: string): Promise<{ secret: string }> {
  await page.goto(url);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL('**/console/enrol');
  const secret = (await page.locator('#totp-secret').textContent())!.trim();
  await page.getByLabel('Code shown by the app').fill(totpCode(secret, new Date()));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.locator('#recovery-codes').waitFor();
  await page.getByRole('link', { name: /continue/ }).click();
  return { secret };
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

export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}
