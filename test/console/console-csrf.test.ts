import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { totpCode } from '../../src/users/totp.js';
import { useHarness } from '../helpers/app.js';
import { ConsoleAgent, PASSWORD, signedInAgent } from '../helpers/console.js';

// The CSRF cookie and its tokens: bound to the session, so a cookie and token an attacker holds
// (planted from a sibling domain, or their own) are worthless in someone else's session; renewed
// at every sign-in; named __Host- where the console is served over HTTPS.

const csrfCookieOf = (response: { headers: Record<string, unknown> }) =>
  ([] as string[]).concat((response.headers['set-cookie'] as string | string[] | undefined) ?? []).find((c) => /csrf=/.test(c));

describe('console CSRF cookie', () => {
  const harness = useHarness();

  it("an attacker's own cookie and token do not work in someone else's session", async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'csrf-bind' });
    const attacker = new ConsoleAgent(h.app);
    await attacker.get('/console/sign-in');
    const { agent: victim } = await signedInAgent(h, 'csrf-bind', 'vic@example.com', 'owner');
    // Cookie tossing: the attacker's secret planted in the victim's browser, the token matching it.
    victim.cookies.set('cra_csrf', attacker.cookies.get('cra_csrf')!);
    victim.csrf = attacker.csrf;
    const forged = await victim.post('/console/o/csrf-bind/keys', { name: 'planted', scopes: 'products:read', expires: '' });
    assert.equal(forged.statusCode, 403);
    assert.deepEqual(await h.keys.listKeys('csrf-bind'), []);

    // Another person's session, its cookie and token both copied: still refused.
    const { agent: other } = await signedInAgent(h, 'csrf-bind', 'oth@example.com', 'viewer');
    await other.get('/console/o/csrf-bind/keys');
    const mine = await victim.get('/console/o/csrf-bind/keys');
    assert.equal(mine.statusCode, 200);
    victim.cookies.set('cra_csrf', other.cookies.get('cra_csrf')!);
    victim.csrf = other.csrf;
    assert.equal(
      (await victim.post('/console/o/csrf-bind/keys', { name: 'copied', scopes: 'products:read', expires: '' })).statusCode,
      403,
    );
    // Its own page's token works.
    await victim.get('/console/o/csrf-bind/keys');
    assert.equal((await victim.post('/console/o/csrf-bind/keys', { name: 'own', scopes: 'products:read', expires: '' })).statusCode, 200);
  });

  it('signing in renews the cookie: a token from before is refused after', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'csrf-renew' });
    const { secret } = await signedInAgent(h, 'csrf-renew', 'ren@example.com', 'owner');
    const agent = new ConsoleAgent(h.app);
    await agent.get('/console/sign-in');
    const [before, tokenBefore] = [agent.cookies.get('cra_csrf'), agent.csrf];
    h.clock.advance(30_000);
    const signedIn = await agent.post('/console/sign-in', {
      email: 'ren@example.com',
      password: PASSWORD,
      code: totpCode(secret, h.clock.now()),
    });
    assert.equal(signedIn.statusCode, 303);
    assert.ok(csrfCookieOf(signedIn), 'a new cookie with the session');
    assert.notEqual(agent.cookies.get('cra_csrf'), before);
    agent.csrf = tokenBefore;
    assert.equal((await agent.post('/console/o/csrf-renew/keys', { name: 'late', scopes: 'products:read', expires: '' })).statusCode, 403);
  });
});

describe('console CSRF cookie over HTTPS', () => {
  const harness = useHarness({ PUBLIC_URL: 'https://console.example' });

  it('is named __Host-, for the whole host, and works', async () => {
    const h = harness();
    const page = await h.app.inject({ method: 'GET', url: '/console/sign-in' });
    assert.match(String(csrfCookieOf(page)), /^__Host-cra_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    await h.orgs.createOrg({ slug: 'csrf-https' });
    const { agent } = await signedInAgent(h, 'csrf-https', 'tls@example.com', 'owner');
    assert.ok(agent.cookies.has('__Host-cra_csrf') && !agent.cookies.has('cra_csrf'));
    await agent.get('/console/o/csrf-https/keys');
    assert.equal((await agent.post('/console/o/csrf-https/keys', { name: 'tls', scopes: 'products:read', expires: '' })).statusCode, 200);
  });
});
