import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { totpCode } from '../../src/users/totp.js';
import { time } from '../../src/console/format.js';
import { listRegistry } from '../../src/registry/registry.service.js';
import { useHarness } from '../helpers/app.js';
import { ConsoleAgent, PASSWORD, signedInAgent } from '../helpers/console.js';

// The console over HTTP as a browser without JavaScript uses it: headers, cookies, CSRF,
// sessions, roles, tenancy and the API-key pages, on both backends.

const secretOf = (body: string) => /id="key-secret"[^>]*>(cra_[0-9A-Za-z]+)</.exec(body)?.[1];

describe('console over HTTP', () => {
  const harness = useHarness();

  it('serves its pages with a strict CSP and secure cookies; the API keeps its own headers', async () => {
    const h = harness();
    const page = await h.app.inject({ method: 'GET', url: '/console/sign-in' });
    assert.equal(page.statusCode, 200);
    assert.equal(
      page.headers['content-security-policy'],
      "default-src 'none';script-src 'self';style-src 'self';img-src 'self' data:;connect-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none'",
    );
    assert.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
    assert.match(String(page.headers['set-cookie']), /cra_csrf=[^;]+; Path=\/console; HttpOnly; Secure; SameSite=Lax/);
    assert.doesNotMatch(page.body, /<script>|style=/, 'no inline script or style');
    const htmx = await h.app.inject({ method: 'GET', url: '/console/assets/htmx.min.js' });
    assert.equal(htmx.statusCode, 200);
    assert.match(htmx.body, /htmx/);

    const api = await h.app.inject({ method: 'GET', url: '/api/v1/external/products' });
    assert.equal(api.statusCode, 401);
    assert.equal(api.headers['content-security-policy'], undefined);
    assert.equal(api.headers['set-cookie'], undefined);
    assert.equal(JSON.parse(api.body).code, 'unauthorized');
    const unknown = await h.app.inject({ method: 'GET', url: '/nothing-here' });
    assert.equal(JSON.parse(unknown.body).code, 'not_found', 'outside /console the JSON 404 stays');
  });

  it('refuses a state-changing request without the CSRF token', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'csrf-org' });
    const { agent } = await signedInAgent(h, 'csrf-org', 'csrf@example.com', 'owner');
    await agent.get('/console/o/csrf-org/keys');
    const refused = await agent.post('/console/o/csrf-org/keys', { name: 'sneaky', scopes: 'products:read', expires: '' }, { csrf: false });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /Form expired/);
    assert.deepEqual(await h.keys.listKeys('csrf-org'), []);
    const signIn = await new ConsoleAgent(h.app).post(
      '/console/sign-in',
      { email: 'csrf@example.com', password: PASSWORD, code: '000000' },
      { csrf: false },
    );
    assert.equal(signIn.statusCode, 403, 'sign-in forms carry a token too');
  });

  it('signs in with password and code, signs out on the server, and ends idle sessions', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'sess-org' });
    const { agent: first, secret } = await signedInAgent(h, 'sess-org', 'sess@example.com', 'analyst');
    const agent = new ConsoleAgent(h.app);
    assert.equal(
      (await agent.get('/console/o/sess-org/today')).headers.location,
      '/console/sign-in?next=%2Fconsole%2Fo%2Fsess-org%2Ftoday',
    );
    await agent.get('/console/sign-in');
    const wrong = await agent.post('/console/sign-in', { email: 'sess@example.com', password: PASSWORD, code: '000000' });
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /The e-mail, password or authentication code is not right\./);
    const ok = await agent.post('/console/sign-in', {
      email: 'sess@example.com',
      password: PASSWORD,
      code: totpCode(secret, h.clock.now()),
      next: '/console/o/sess-org/today',
    });
    assert.equal(ok.statusCode, 303);
    assert.equal(ok.headers.location, '/console/o/sess-org/today');
    assert.match(String(ok.headers['set-cookie']), /cra_session=[^;]+; Path=\/console; HttpOnly; Secure; SameSite=Lax/);
    assert.equal((await agent.get('/console/o/sess-org/today')).statusCode, 200);

    const stolen = new Map(agent.cookies);
    await agent.post('/console/sign-out', {});
    const replay = new ConsoleAgent(h.app);
    replay.cookies = stolen;
    assert.equal((await replay.get('/console/o/sess-org/today')).statusCode, 303, 'the old cookie is dead on the server');

    assert.equal((await first.get('/console/o/sess-org/today')).statusCode, 200);
    h.clock.advance(31 * 60_000);
    const idle = await first.get('/console/o/sess-org/today');
    assert.equal(idle.statusCode, 303);
    assert.match(String(idle.headers.location), /^\/console\/sign-in/);
  });

  it('no page is kept in a cache: every console answer but the static assets says no-store', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'cache-org' });
    const { agent } = await signedInAgent(h, 'cache-org', 'cache@example.com', 'owner');
    for (const url of [
      '/console/o/cache-org/today',
      '/console/o/cache-org/products',
      '/console/o/cache-org/keys',
      '/console/o/cache-org/activity',
      '/console/o/cache-org/members',
      '/console/account',
      '/console/o/cache-org/cases/999',
      '/console/o/other-org/today',
      '/console/sign-in',
      '/console',
    ]) {
      const r = await agent.get(url);
      assert.equal(r.headers['cache-control'], 'no-store', `${url} (${r.statusCode})`);
    }
    assert.equal((await agent.get('/console/assets/console.css')).headers['cache-control'], 'public, max-age=3600');
  });

  it('completing enrolment starts a new session: the token of the enrolment stage no longer works', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'fix-org' });
    const invitation = await h.users.invite({ org: 'fix-org', email: 'fix@example.com', role: 'viewer', actor: 'cli' });
    const agent = new ConsoleAgent(h.app);
    await agent.get(`/console/invite/${invitation.token}`);
    await agent.post(`/console/invite/${invitation.token}`, { password: PASSWORD, confirm: PASSWORD });
    const enrolling = agent.cookies.get('cra_session')!;
    const enrol = await agent.get('/console/enrol');
    const secret = /id="totp-secret" class="secret">([A-Z2-7]+)</.exec(enrol.body)![1]!;
    const done = await agent.post('/console/enrol', { code: totpCode(secret, h.clock.now()) });
    assert.equal(done.statusCode, 200);
    const full = agent.cookies.get('cra_session')!;
    assert.notEqual(full, enrolling, 'a new session token with the full session');
    assert.equal(await h.users.resolveSession(enrolling), null, 'whoever knew the old token has nothing');
    assert.equal((await h.users.resolveSession(full))?.session.stage, 'full');
    // The recovery codes page's own token (htmx's header) is one of the new session; the enrolment page's is void.
    assert.equal((await agent.post('/console/sign-out', {})).statusCode, 403);
    agent.csrf = /"X-CSRF-Token": "([^"]+)"/.exec(done.body)![1]!;
    assert.equal((await agent.post('/console/sign-out', {})).statusCode, 303);
    assert.equal(await h.users.resolveSession(full), null);
  });

  it("answers 404 for another organisation's pages, and 403 when a viewer tries a change", async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'mine' });
    await h.orgs.createOrg({ slug: 'theirs' });
    await h.keys.createKey({ org: 'theirs', name: 'their-key', scopes: ['products:read'] });
    const { agent } = await signedInAgent(h, 'mine', 'viewer@example.com', 'viewer');
    for (const url of ['/console/o/theirs/today', '/console/o/theirs/keys', '/console/o/nobody/keys']) {
      const r = await agent.get(url);
      assert.equal(r.statusCode, 404, url);
      assert.doesNotMatch(r.body, /their-key/);
    }
    const keys = await agent.get('/console/o/mine/keys');
    assert.equal(keys.statusCode, 200);
    assert.doesNotMatch(keys.body, /Create a key/, 'a viewer sees no form to change anything');
    const refused = await agent.post('/console/o/mine/keys', { name: 'nope', scopes: 'products:read', expires: '' });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /Your role in mine \(viewer\) does not allow this change\./);
    const foreign = await agent.post('/console/o/theirs/keys/revoke', { name: 'their-key' });
    assert.equal(foreign.statusCode, 404);
    assert.equal((await h.keys.listKeys('theirs'))[0]!.revoked_at, null);
  });

  it('creates a key shown once, rotates it with a grace period, revokes it; the API follows; the registry names the user', async () => {
    const h = harness();
    const org = await h.orgs.createOrg({ slug: 'keys-org' });
    const { agent } = await signedInAgent(h, 'keys-org', 'admin@example.com', 'admin');
    await agent.get('/console/o/keys-org/keys');
    const invalid = await agent.post('/console/o/keys-org/keys', { name: '', expires: 'soon' });
    assert.equal(invalid.statusCode, 400);
    assert.match(invalid.body, /id="name-error">Give the key a name of 1 to 100 characters\./);
    assert.match(invalid.body, /id="scopes-error">Choose at least one scope\./);
    assert.match(invalid.body, /id="expires-error">Give the expiry as a date/);

    const created = await agent.post('/console/o/keys-org/keys', {
      name: 'erp',
      scopes: ['products:read', 'compliance:read'],
      expires: '',
    });
    assert.equal(created.statusCode, 200);
    assert.equal(created.headers['cache-control'], 'no-store');
    const secret = secretOf(created.body)!;
    assert.ok(secret);
    const api = (key: string) => h.app.inject({ method: 'GET', url: '/api/v1/external/products', headers: { 'x-cra-api-key': key } });
    assert.equal((await api(secret)).statusCode, 200);
    const list = await agent.get('/console/o/keys-org/keys');
    assert.doesNotMatch(list.body, new RegExp(secret), 'never shown again');
    assert.match(list.body, /products:read, compliance:read/);
    assert.match(list.body, new RegExp(`<td>${time(h.clock.now().toISOString())}</td>\\s*<td>never</td>`), 'last use is listed');

    const duplicate = await agent.post('/console/o/keys-org/keys', { name: 'erp', scopes: 'products:read', expires: '' });
    assert.match(duplicate.body, /id="name-error">a key named &quot;erp&quot; already exists/);

    const rotated = await agent.post('/console/o/keys-org/keys/rotate', { name: 'erp', grace: '1h' });
    assert.match(rotated.body, new RegExp(`keeps working until ${time(new Date(h.clock.now().getTime() + 3_600_000).toISOString())}`));
    const newSecret = secretOf(rotated.body)!;
    assert.equal((await api(secret)).statusCode, 200, 'old secret during grace');
    assert.equal((await api(newSecret)).statusCode, 200);

    await agent.get('/console/o/keys-org/keys');
    const rotatedNow = await agent.post('/console/o/keys-org/keys/rotate', { name: 'erp', grace: '' });
    assert.match(rotatedNow.body, /id="previous-secret-until">stopped working now</);
    const lastSecret = secretOf(rotatedNow.body)!;
    assert.equal((await api(newSecret)).statusCode, 401, 'without a grace period the previous secret stops at once');
    assert.equal((await api(lastSecret)).statusCode, 200);

    await agent.get('/console/o/keys-org/keys');
    const revoked = await agent.post('/console/o/keys-org/keys/revoke', { name: 'erp' });
    assert.equal(revoked.statusCode, 303);
    assert.equal((await api(lastSecret)).statusCode, 401);
    assert.equal((await api(secret)).statusCode, 401);

    const entries = [];
    for await (const e of listRegistry(h.database, org.id)) entries.push(e);
    const keyEntries = entries.filter((e) => e.action.startsWith('key.'));
    assert.deepEqual(
      keyEntries.map((e) => [e.actor, e.action]),
      [
        ['user:admin@example.com', 'key.created'],
        ['user:admin@example.com', 'key.rotated'],
        ['user:admin@example.com', 'key.rotated'],
        ['user:admin@example.com', 'key.revoked'],
      ],
    );
    for (const e of entries) {
      assert.ok(![secret, newSecret, lastSecret, PASSWORD].some((text) => e.details.includes(text)), 'no secret in the registry');
    }
  });
});
