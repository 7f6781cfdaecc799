import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { totpCode } from '../../src/users/totp.js';
import { buildHarness, type Harness } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { ConsoleAgent, PASSWORD, signedInAgent } from '../helpers/console.js';

// First-run set-up (issue 28) over HTTP, on both backends: while no console user exists the
// console says only where the set-up link is; the link creates the first organisation and its
// owner once, through the invitation's enrolment, and is refused when wrong, forged, used, from
// before a restart, raced by a second claim, or once a user exists.

const NOT_SET_UP = 'This instance is not set up yet: use the link printed where the server started.';

const form = (overrides: Record<string, string> = {}) => ({
  org_name: 'Acme Devices GmbH',
  org_slug: '',
  email: 'Owner@Example.com',
  password: PASSWORD,
  confirm: PASSWORD,
  ...overrides,
});

/** Opens a page with a form (for its CSRF token: the link's own by default) and submits the set-up form to the link. */
async function claim(h: Harness, token: string, fields: Record<string, string> = {}, formPage = `/console/setup/${token}`) {
  const agent = new ConsoleAgent(h.app);
  await agent.get(formPage);
  assert.ok(agent.csrf, `a form with a CSRF token at ${formPage}`);
  return { agent, response: await agent.post(`/console/setup/${token}`, form(fields)) };
}

const userCount = async (h: Harness) => (await h.users.listUsers()).length;

describe('first-run set-up in the console', () => {
  it('says only where the set-up link is on every console page while no user exists', async (t) => {
    const h = await buildHarness(t);
    await h.setup.linkAtStart();
    for (const url of [
      '/console',
      '/console/sign-in',
      '/console/account',
      '/console/o/acme/today',
      '/console/o/acme/keys',
      '/console/enrol',
    ]) {
      const page = await h.app.inject({ method: 'GET', url });
      assert.equal(page.statusCode, 200, url);
      assert.match(page.body, new RegExp(NOT_SET_UP.replace(/[.:]/g, '\\$&')), url);
      assert.doesNotMatch(page.body, /<form|<input|href="\/console\/(sign-in|setup)/, `${url}: nothing more than the message`);
    }
    const signIn = await h.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      payload: 'email=a%40b.example&password=x&code=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.match(signIn.body, /not set up yet/);
    assert.equal((await h.app.inject({ method: 'GET', url: '/console/assets/console.css' })).statusCode, 200);
    assert.equal((await h.app.inject({ method: 'GET', url: '/api/v1/external/products' })).statusCode, 401, 'the API is unchanged');
  });

  it('creates the first organisation and its owner, who enrols an authenticator and lands on Today', async (t) => {
    const h = await buildHarness(t);
    const token = (await h.setup.linkAtStart())!;
    assert.match(token, /^[A-Za-z0-9_-]{43}$/, '256 random bits');
    const agent = new ConsoleAgent(h.app);
    const page = await agent.get(`/console/setup/${token}`);
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.match(page.body, /Set up this instance/);

    const forged = await agent.post(`/console/setup/${token}`, form(), { csrf: false });
    assert.equal(forged.statusCode, 403, 'the form carries a CSRF token');
    const differ = await agent.post(`/console/setup/${token}`, form({ confirm: `${PASSWORD}!` }));
    assert.equal(differ.statusCode, 400);
    assert.match(differ.body, /The two passwords differ\./);
    assert.doesNotMatch(differ.body, new RegExp(PASSWORD), 'a password is never sent back');
    const common = await agent.post(`/console/setup/${token}`, form({ password: 'password1234', confirm: 'password1234' }));
    assert.match(common.body, /commonly used passwords/);
    const email = await agent.post(`/console/setup/${token}`, form({ email: 'not-an-address' }));
    assert.match(email.body, /id="email-error"/);
    const slug = await agent.post(`/console/setup/${token}`, form({ org_slug: '-bad-' }));
    assert.match(slug.body, /id="org_slug-error"/);
    assert.equal(await userCount(h), 0, 'nothing is created by a refused form');

    const done = await agent.post(`/console/setup/${token}`, form());
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/console/enrol');
    const enrol = await agent.get('/console/enrol');
    const secret = /id="totp-secret" class="secret">([A-Z2-7]+)</.exec(enrol.body)![1]!;
    const codes = await agent.post('/console/enrol', { code: totpCode(secret, h.clock.now()) });
    assert.match(codes.body, /Your recovery codes/);
    const home = await agent.get('/console');
    assert.equal(home.headers.location, '/console/o/acme-devices-gmbh/today', 'the slug is made from the name');
    const today = await agent.get('/console/o/acme-devices-gmbh/today');
    assert.equal(today.statusCode, 200);
    assert.match(today.body, /Today in Acme Devices GmbH/);

    assert.deepEqual(
      (await h.users.listUsers()).map((u) => [u.email, u.totp_enrolled, u.memberships]),
      [['owner@example.com', true, [{ org: 'acme-devices-gmbh', role: 'owner' }]]],
    );
    const entries = [];
    for await (const e of h.registry.entries('acme-devices-gmbh')) entries.push([e.action, e.actor]);
    assert.deepEqual(entries, [
      ['org.created', 'user:owner@example.com'],
      ['user.joined', 'user:owner@example.com'],
    ]);
    assert.deepEqual(await h.registry.verify('acme-devices-gmbh'), { ok: true, entries: 2 });

    const again = await new ConsoleAgent(h.app).get(`/console/setup/${token}`);
    assert.equal(again.statusCode, 409, 'the link works once');
    assert.match(again.body, /already set up/);
    const signIn = await new ConsoleAgent(h.app).get('/console/sign-in');
    assert.match(signIn.body, /<h1>Sign in<\/h1>/, 'once set up, the console is the console');
  });

  it('refuses a wrong or forged token, and a link from before a restart', async (t) => {
    const h = await buildHarness(t);
    const first = (await h.setup.linkAtStart())!;
    const wrong = `${first.slice(0, -1)}${first.endsWith('A') ? 'B' : 'A'}`;
    for (const token of [wrong, randomBytes(32).toString('base64url'), 'x', '..%2F..%2Fsign-in']) {
      const page = await h.app.inject({ method: 'GET', url: `/console/setup/${token}` });
      assert.equal(page.statusCode, 404, token);
      assert.match(page.body, /This set-up link is unknown, already used, or was printed before the server last started/);
      const { response } = await claim(h, token, {}, `/console/setup/${first}`);
      assert.equal(response.statusCode, 404, token);
    }
    const fromCli = await h.setup.newLink();
    assert.equal((await h.app.inject({ method: 'GET', url: `/console/setup/${fromCli}` })).statusCode, 200, 'cra-admin adds a link');

    const second = (await h.setup.linkAtStart())!;
    for (const old of [first, fromCli]) {
      assert.equal((await h.app.inject({ method: 'GET', url: `/console/setup/${old}` })).statusCode, 404, 'void after a restart');
      assert.equal((await claim(h, old, {}, `/console/setup/${second}`)).response.statusCode, 404);
    }
    assert.equal(await userCount(h), 0);
    assert.equal((await claim(h, second)).response.statusCode, 303, "the new start's link works");
  });

  /**
   * One claim succeeds (303); the other is refused: 404 when it reaches its transaction after the
   * first took the links, 409 ("already set up") when it arrives after the first committed.
   */
  const assertOneClaimed = (codes: number[]) => {
    const [won, lost] = [...codes].sort();
    assert.equal(won, 303, codes.join(' '));
    assert.ok(lost === 404 || lost === 409, codes.join(' '));
  };

  it('creates one owner when two tabs, or two links, claim at once', async (t) => {
    const h = await buildHarness(t);
    const token = (await h.setup.linkAtStart())!;
    const tabs = [new ConsoleAgent(h.app), new ConsoleAgent(h.app)];
    for (const tab of tabs) await tab.get(`/console/setup/${token}`);
    const sameLink = await Promise.all(
      tabs.map((tab, i) => tab.post(`/console/setup/${token}`, form({ email: `tab${i}@example.com`, org_slug: `tab${i}` }))),
    );
    assertOneClaimed(sameLink.map((r) => r.statusCode));
    assert.equal(await userCount(h), 1);
    assert.equal((await h.orgs.listOrgs()).length, 1);

    const other = await buildHarness(t);
    const links = [(await other.setup.linkAtStart())!, await other.setup.newLink()];
    const agents = links.map(() => new ConsoleAgent(other.app));
    for (const [i, agent] of agents.entries()) await agent.get(`/console/setup/${links[i]}`);
    const twoLinks = await Promise.all(
      agents.map((agent, i) => agent.post(`/console/setup/${links[i]}`, form({ email: `link${i}@example.com`, org_slug: `link${i}` }))),
    );
    assertOneClaimed(twoLinks.map((r) => r.statusCode));
    assert.equal(await userCount(other), 1);
    assert.equal((await other.orgs.listOrgs()).length, 1);
  });

  it('shows a short name already taken next to its field, and the link still works', async (t) => {
    const h = await buildHarness(t);
    await h.orgs.createOrg({ slug: 'acme' });
    const token = (await h.setup.linkAtStart())!;
    const { agent, response } = await claim(h, token, { org_slug: 'acme' });
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /id="org_slug-error">An organisation &quot;acme&quot; already exists; choose another short name\./);
    const retry = await agent.post(`/console/setup/${token}`, form({ org_slug: 'acme-2' }));
    assert.equal(retry.statusCode, 303);
    assert.deepEqual((await h.users.listUsers())[0]!.memberships, [{ org: 'acme-2', role: 'owner' }]);
  });

  it('refuses every link once a user exists, also one who came by invitation', async (t) => {
    const h = await buildHarness(t);
    const token = (await h.setup.linkAtStart())!;
    await h.orgs.createOrg({ slug: 'invited' });
    await signedInAgent(h, 'invited', 'ana@example.com', 'owner');
    assert.equal((await h.app.inject({ method: 'GET', url: `/console/setup/${token}` })).statusCode, 409);
    assert.equal((await claim(h, token, {}, '/console/sign-in')).response.statusCode, 409);
    assert.equal(await userCount(h), 1);
    await assert.rejects(h.setup.newLink(), (e) => e instanceof AppError && e.code === 'conflict');
    assert.equal(await h.setup.linkAtStart(), null, 'a start prints no link');
  });

  it('cra-admin setup-link prints a link that opens the set-up, and refuses once a user exists', async (t) => {
    const h = await buildHarness(t);
    const env = { DATABASE_URL: h.config.databaseUrl, PUBLIC_URL: 'https://cra.example.com' };
    const text = await runCli(['setup-link'], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^One-time set-up link: .+\nhttps:\/\/cra\.example\.com\/console\/setup\/[A-Za-z0-9_-]{43}\n$/);
    const json = await runCli(['setup-link', '--json'], env);
    const { url } = json.json();
    assert.deepEqual(Object.keys(json.json()), ['url']);
    const path = new URL(url).pathname;
    assert.equal((await h.app.inject({ method: 'GET', url: path })).statusCode, 200);
    assert.equal((await claim(h, path.split('/').pop()!)).response.statusCode, 303);

    const refused = await runCli(['setup-link'], env);
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /^cra-admin: this instance is already set up \(a console user exists\)/);
  });
});
