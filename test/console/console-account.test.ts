import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { totpCode } from '../../src/users/totp.js';
import { THROTTLE } from '../../src/users/users.service.js';
import { listRegistry } from '../../src/registry/registry.service.js';
import { useHarness } from '../helpers/app.js';
import { ConsoleAgent, PASSWORD, signedInAgent } from '../helpers/console.js';

// The person's own account (password change) and an invitation accepted by someone who
// already has an account, over HTTP as a browser without JavaScript.

const NEW_PASSWORD = 'quiet-harbour-92-thistle';

describe('console account', () => {
  const harness = useHarness();

  /** Signs `email` in on a fresh agent with password and the next unused TOTP step. */
  async function signIn(h: ReturnType<typeof harness>, email: string, password: string, secret: string) {
    const agent = new ConsoleAgent(h.app);
    await agent.get('/console/sign-in');
    h.clock.advance(30_000);
    const r = await agent.post('/console/sign-in', { email, password, code: totpCode(secret, h.clock.now()) });
    return { agent, response: r };
  }

  it('changes the password: current checked, new one checked, twice; every other session ends; the new one signs in', async () => {
    const h = harness();
    const org = await h.orgs.createOrg({ slug: 'acct-org' });
    const { agent, secret } = await signedInAgent(h, 'acct-org', 'pia@example.com', 'analyst');
    const { agent: laptop } = await signIn(h, 'pia@example.com', PASSWORD, secret);
    assert.equal((await laptop.get('/console/o/acct-org/today')).statusCode, 200);

    const page = await agent.get('/console/account');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>Your account<\/h1>/);
    assert.match(page.body, /acct-org<\/a> \(analyst\)/);
    assert.match((await agent.get('/console/o/acct-org/today')).body, /href="\/console\/account">Your account/, 'linked from every page');

    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ current: '', password: NEW_PASSWORD, confirm: NEW_PASSWORD }, /id="current-error">Enter your current password\./],
      [
        { current: PASSWORD, password: NEW_PASSWORD, confirm: 'something-else-entirely' },
        /id="confirm-error">The two new passwords differ\./,
      ],
      [{ current: PASSWORD, password: 'short-pw', confirm: 'short-pw' }, /id="password-error">Use at least 12 characters\./],
      [
        { current: PASSWORD, password: 'password1234', confirm: 'password1234' },
        /id="password-error">This password is on a list of commonly used passwords; choose another\./,
      ],
      [
        { current: PASSWORD, password: PASSWORD, confirm: PASSWORD },
        /id="password-error">The new password is the current one; choose another\./,
      ],
      [
        { current: 'not-my-password-at-all', password: NEW_PASSWORD, confirm: NEW_PASSWORD },
        /id="current-error">The current password is not right\./,
      ],
    ];
    for (const [form, error] of cases) {
      const r = await agent.post('/console/account/password', form);
      assert.equal(r.statusCode, 400, JSON.stringify(form));
      assert.match(r.body, error);
      assert.match(r.body, /aria-invalid="true"/);
    }
    assert.equal((await laptop.get('/console/o/acct-org/today')).statusCode, 200, 'a refused change ends nothing');
    const forged = await agent.post(
      '/console/account/password',
      { current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD },
      { csrf: false },
    );
    assert.equal(forged.statusCode, 403, 'CSRF token required');

    await agent.get('/console/account');
    const changed = await agent.post('/console/account/password', { current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.equal(changed.statusCode, 303);
    assert.equal(changed.headers.location, '/console/account?changed=1');
    assert.match((await agent.get('/console/account?changed=1')).body, /Your password is changed\. Every other session of yours has ended/);
    assert.equal((await agent.get('/console/o/acct-org/today')).statusCode, 200, 'this session goes on');
    const ended = await laptop.get('/console/o/acct-org/today');
    assert.equal(ended.statusCode, 303, 'the other session has ended');
    assert.match(String(ended.headers.location), /^\/console\/sign-in/);

    assert.equal((await signIn(h, 'pia@example.com', PASSWORD, secret)).response.statusCode, 401, 'the old password no longer works');
    const again = await signIn(h, 'pia@example.com', NEW_PASSWORD, secret);
    assert.equal(again.response.statusCode, 303);

    for await (const e of listRegistry(h.database, org.id)) {
      assert.ok(!e.details.includes(NEW_PASSWORD) && !e.details.includes(PASSWORD), 'no password in the registry');
      assert.doesNotMatch(e.action, /password/, 'account changes are not registry entries (as disable and reset-2fa)');
    }
  });

  it('a wrong current password counts like a failed sign-in from this browser; past the limit nothing is checked', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'acct-guess' });
    const { agent, secret } = await signedInAgent(h, 'acct-guess', 'gus@example.com', 'viewer');
    await agent.get('/console/account');
    // Enrolment made this browser one of the person's devices: the device's own limit applies.
    for (let i = 0; i < THROTTLE.perDevice; i++) {
      const r = await agent.post('/console/account/password', {
        current: `guess-number-${i}`,
        password: NEW_PASSWORD,
        confirm: NEW_PASSWORD,
      });
      assert.match(r.body, /The current password is not right\./);
    }
    const refused = await agent.post('/console/account/password', { current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.equal(refused.statusCode, 429);
    assert.match(refused.body, /id="current-error">Too many failed sign-ins for this account\. Try again in 15 minutes\./);
    const sameBrowser = new ConsoleAgent(h.app);
    sameBrowser.cookies.set('cra_device', agent.cookies.get('cra_device')!);
    await sameBrowser.get('/console/sign-in');
    h.clock.advance(30_000);
    const signInHere = await sameBrowser.post('/console/sign-in', {
      email: 'gus@example.com',
      password: PASSWORD,
      code: totpCode(secret, h.clock.now()),
    });
    assert.equal(signInHere.statusCode, 429, "sign-in from this browser shares the device's limit");
    assert.equal(
      (await signIn(h, 'gus@example.com', PASSWORD, secret)).response.statusCode,
      303,
      'a stolen session cannot lock the person out of their other browsers',
    );
    h.clock.advance(THROTTLE.windowMs);
    await agent.get('/console/account');
    const later = await agent.post('/console/account/password', { current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.equal(later.statusCode, 303);
  });

  it('refuses passwords that are easy to guess at the invitation and at the change, its own e-mail among them', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'weak-org' });
    const invitation = await h.users.invite({ org: 'weak-org', email: 'wes@example.com', role: 'viewer', actor: 'cli' });
    const agent = new ConsoleAgent(h.app);
    await agent.get(`/console/invite/${invitation.token}`);
    for (const weak of [' '.repeat(12), 'zzzzzzzzzzzzzz', 'abcabcabcabcabc', 'wes@example.com', 'wes@example.com!']) {
      const r = await agent.post(`/console/invite/${invitation.token}`, { password: weak, confirm: weak });
      assert.equal(r.statusCode, 400, JSON.stringify(weak));
      assert.match(r.body, /id="password-error">This password is too easy to guess/, JSON.stringify(weak));
    }
    const { agent: member, secret } = await signedInAgent(h, 'weak-org', 'wil@example.com', 'viewer');
    void secret;
    await member.get('/console/account');
    const r = await member.post('/console/account/password', {
      current: PASSWORD,
      password: 'wil@example.com',
      confirm: 'wil@example.com',
    });
    assert.equal(r.statusCode, 400);
    assert.match(r.body, /id="password-error">This password is too easy to guess: it contains your e-mail address/);
  });

  it('anonymous: the account page asks to sign in; the POST without a session changes nothing', async () => {
    const h = harness();
    const anonymous = new ConsoleAgent(h.app);
    const page = await anonymous.get('/console/account');
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers.location, '/console/sign-in?next=%2Fconsole%2Faccount');
    await anonymous.get('/console/sign-in');
    const post = await anonymous.post('/console/account/password', { current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    assert.equal(post.statusCode, 303);
    assert.match(String(post.headers.location), /^\/console\/sign-in/);
  });

  it('an existing user invited to a second organisation signs in with the password and code they have, accepts, and reaches both', async () => {
    const h = harness();
    const first = await h.orgs.createOrg({ slug: 'org-a', name: 'Alpha Ltd' });
    const second = await h.orgs.createOrg({ slug: 'org-b', name: 'Beta GmbH' });
    const { secret } = await signedInAgent(h, 'org-a', 'max@example.com', 'analyst');
    const userBefore = (await h.users.listUsers()).find((u) => u.email === 'max@example.com')!;
    const invitation = await h.users.invite({ org: 'org-b', email: 'MAX@example.com', role: 'viewer', actor: 'user:owner@org-b.example' });
    const link = `/console/invite/${invitation.token}`;

    const browser = new ConsoleAgent(h.app);
    const landing = await browser.get(link);
    assert.equal(landing.statusCode, 200);
    // The page offers both ways whoever opens it: it does not tell whether the address has an account.
    assert.match(landing.body, /Already have an account on this console\? <a href="[^"]+">Sign in as max@example\.com<\/a>/);
    const signInLink = /href="(\/console\/sign-in\?next=[^"]+)"/.exec(landing.body)![1]!;
    assert.equal(signInLink, `/console/sign-in?next=${encodeURIComponent(link)}`);
    const form = await browser.get(signInLink);
    await browser.get(link);
    const acceptAnonymously = await browser.post(link, { password: 'another-new-password-99', confirm: 'another-new-password-99' });
    assert.equal(acceptAnonymously.statusCode, 400, 'no second account, and no acceptance without signing in');
    assert.match(acceptAnonymously.body, /id="password-error">This address has an account on this console already: sign in with it/);
    const next = /name="next" value="([^"]+)"/.exec(form.body)![1]!;
    assert.equal(next, link);
    h.clock.advance(30_000);
    const signedIn = await browser.post('/console/sign-in', {
      email: 'max@example.com',
      password: PASSWORD,
      code: totpCode(secret, h.clock.now()),
      next,
    });
    assert.equal(signedIn.statusCode, 303);
    assert.equal(signedIn.headers.location, link, 'back to the invitation, not to enrolment');

    const accept = await browser.get(link);
    assert.match(accept.body, /Accept the invitation/);
    const accepted = await browser.post(link, {});
    assert.equal(accepted.statusCode, 303);
    assert.equal(accepted.headers.location, '/console/o/org-b/today');
    assert.equal((await browser.get(link)).statusCode, 404, 'the link is used up');

    const b = await browser.get('/console/o/org-b/today');
    assert.equal(b.statusCode, 200);
    assert.match(b.body, /viewer of Beta GmbH/);
    const a = await browser.get('/console/o/org-a/today');
    assert.equal(a.statusCode, 200);
    assert.match(a.body, /analyst of Alpha Ltd/);
    // The organisation switcher: both, the current one marked.
    assert.match(a.body, /<nav aria-label="Organisations"/);
    assert.match(a.body, /href="\/console\/o\/org-a\/today" aria-current="true">Alpha Ltd/);
    assert.match(a.body, /href="\/console\/o\/org-b\/today">Beta GmbH/);

    const userAfter = (await h.users.listUsers()).find((u) => u.email === 'max@example.com')!;
    assert.equal(userAfter.created_at, userBefore.created_at, 'the same account');
    assert.ok(userAfter.totp_enrolled);
    assert.deepEqual(userAfter.memberships.map((m) => `${m.org} ${m.role}`).sort(), ['org-a analyst', 'org-b viewer']);
    const joined = [];
    for await (const e of listRegistry(h.database, second.id)) joined.push(`${e.actor} ${e.action} ${e.subject}`);
    assert.deepEqual(joined.slice(-2), [
      'user:owner@org-b.example user.invited max@example.com',
      'user:max@example.com user.joined max@example.com',
    ]);
    const firstOrg = [];
    for await (const e of listRegistry(h.database, first.id)) firstOrg.push(e.action);
    assert.equal(firstOrg.filter((a) => a === 'user.joined').length, 1, 'nothing new in the first organisation');
  });

  it('inviting an address with an account and one without look the same to the inviter, link and page', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'org-e' });
    await h.orgs.createOrg({ slug: 'org-f' });
    await signedInAgent(h, 'org-e', 'has@example.com', 'viewer');
    const { agent: owner } = await signedInAgent(h, 'org-f', 'own@example.com', 'owner');
    await owner.get('/console/o/org-f/members');
    const invite = async (email: string) => {
      const r = await owner.post('/console/o/org-f/members/invite', { email, role: 'analyst' });
      const url = /id="invitation-url"[^>]*>([^<]+)</.exec(r.body)![1]!;
      return { page: r.body, path: new URL(url).pathname };
    };
    const existing = await invite('has@example.com');
    const fresh = await invite('new@example.com');
    /** A page with what differs by nature (the address, the token, CSRF tokens, the expiry) blanked. */
    const blank = (body: string, ...variable: string[]) =>
      variable
        .flatMap((v) => [v, encodeURIComponent(v)])
        .reduce((b, v) => b.replaceAll(v, '…'), body)
        .replace(/value="[^"]{20,}"|"X-CSRF-Token": "[^"]+"/g, '…')
        .replace(/valid until [^.]+\./, '…');
    assert.equal(blank(existing.page, 'has@example.com', existing.path), blank(fresh.page, 'new@example.com', fresh.path));
    // The inviter opens both links themselves, signed out (a private window).
    const look = async (path: string) => (await new ConsoleAgent(h.app).get(path)).body;
    const [a, b] = [await look(existing.path), await look(fresh.path)];
    assert.equal(blank(a, 'has@example.com', existing.path), blank(b, 'new@example.com', fresh.path));
    assert.doesNotMatch(a, /already has an account/);
  });

  it('an invitation opened while signed in as someone else says so and cannot be accepted by them', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'org-c' });
    await h.orgs.createOrg({ slug: 'org-d' });
    const { agent: zoe } = await signedInAgent(h, 'org-c', 'zoe@example.com', 'owner');
    await signedInAgent(h, 'org-c', 'yan@example.com', 'viewer');
    const invitation = await h.users.invite({ org: 'org-d', email: 'yan@example.com', role: 'analyst', actor: 'cli' });
    const link = `/console/invite/${invitation.token}`;
    const page = await zoe.get(link);
    assert.match(page.body, /You are signed in as zoe@example\.com, but this invitation is for yan@example\.com\. Sign out/);
    assert.doesNotMatch(page.body, /Accept the invitation/);
    const forced = await zoe.post(link, { password: PASSWORD, confirm: PASSWORD });
    assert.equal(forced.statusCode, 403);
    assert.match(forced.body, /This invitation is for yan@example\.com; you are signed in as zoe@example\.com\./);
    assert.equal((await zoe.get('/console/o/org-d/today')).statusCode, 404);
    assert.equal((await h.users.invitation(invitation.token)).email, 'yan@example.com', 'still open for the right person');
  });
});
