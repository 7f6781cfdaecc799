import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { totpCode } from '../../src/users/totp.js';
import { useHarness } from '../helpers/app.js';
import { ConsoleAgent, PASSWORD, signedInAgent } from '../helpers/console.js';
import { allowDirectWrites } from '../helpers/db.js';

// It forges a registry entry directly, outside Database.transaction.
allowDirectWrites();

describe('console activity registry and members', () => {
  const harness = useHarness();

  it('lists the registry newest first, filters by action, and verifies the chain in place or as a page', async () => {
    const h = harness();
    const org = await h.orgs.createOrg({ slug: 'reg-org' });
    for (const sku of ['A-1', 'B-2', 'C-3']) await h.products.addProduct('reg-org', sku, { name: sku });
    const { agent } = await signedInAgent(h, 'reg-org', 'ana@example.com', 'viewer');
    const page = await agent.get('/console/o/reg-org/activity');
    assert.equal(page.statusCode, 200);
    const subjects = [
      ...page.body.matchAll(/<td class="action">(product\.added|user\.joined|user\.invited|org\.created)<\/td><td>([^<]+)<\/td>/g),
    ].map((m) => `${m[1]} ${m[2]}`);
    assert.deepEqual(subjects, [
      'user.joined ana@example.com',
      'user.invited ana@example.com',
      'product.added C-3',
      'product.added B-2',
      'product.added A-1',
      'org.created reg-org',
    ]);
    // Details in words, the raw JSON behind a disclosure.
    assert.match(
      page.body,
      /<td class="details"><p class="entry-text">A-1<\/p>\s*<details><summary>JSON<span class="visually-hidden"> of entry #2<\/span><\/summary><pre>\{\n[^<]*&quot;sku&quot;: &quot;A-1&quot;,/,
    );
    assert.doesNotMatch(page.body, /<code>\{/, 'no JSON in plain view');
    const filtered = await agent.get('/console/o/reg-org/activity?action=product.added');
    assert.equal((filtered.body.match(/<td class="action">product\.added<\/td>/g) ?? []).length, 3);
    assert.doesNotMatch(filtered.body, /<td class="action">org\.created<\/td>/);

    const full = await agent.get('/console/o/reg-org/activity/verify');
    assert.match(full.body, /<h1>Activity registry<\/h1>[\s\S]*Chain intact: 6 entries verified\./);
    const fragment = await h.app.inject({
      method: 'GET',
      url: '/console/o/reg-org/activity/verify',
      headers: { cookie: [...agent.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'hx-request': 'true' },
    });
    assert.match(fragment.body, /^\s*<p class="ok" id="verification" role="status">Chain intact: 6 entries verified\.<\/p>\s*$/);

    await h.database.db.updateTable('registry_entries').set({ subject: 'Z-9' }).where('org_id', '=', org.id).where('seq', '=', 3).execute();
    const broken = await agent.get('/console/o/reg-org/activity/verify');
    assert.match(broken.body, /Chain BROKEN at entry #3 \(6 entries read\)/);
  });

  it('owners invite with a one-time link, change roles and remove members; the last owner stays', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'team-org' });
    const { agent: owner } = await signedInAgent(h, 'team-org', 'olga@example.com', 'owner');
    await owner.get('/console/o/team-org/members');
    const bad = await owner.post('/console/o/team-org/members/invite', { email: 'nope', role: 'king' });
    assert.match(bad.body, /id="email-error">Enter an e-mail address\./);
    assert.match(bad.body, /id="role-error">Choose a role: owner, admin, analyst or viewer\./);
    // The link is built on PUBLIC_URL, else the server's own address: never on the Host header,
    // which whoever sends the request chooses.
    const invited = await owner.post(
      '/console/o/team-org/members/invite',
      { email: 'Ben@Example.com', role: 'analyst' },
      { headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' } },
    );
    assert.equal(invited.statusCode, 200);
    const url = /id="invitation-url"[^>]*>([^<]+)</.exec(invited.body)![1]!;
    assert.match(url, /^http:\/\/localhost:8080\/console\/invite\/[A-Za-z0-9_-]{43}$/);

    const ben = new ConsoleAgent(h.app);
    const path = new URL(url).pathname;
    assert.match((await ben.get(path)).body, /makes <strong>ben@example.com<\/strong> analyst of team-org/);
    await ben.post(path, { password: PASSWORD, confirm: PASSWORD });
    const secret = /id="totp-secret" class="secret">([A-Z2-7]+)</.exec((await ben.get('/console/enrol')).body)![1]!;
    await ben.post('/console/enrol', { code: totpCode(secret, h.clock.now()) });
    assert.equal((await ben.get('/console/o/team-org/members')).statusCode, 200);
    assert.equal(
      (await ben.post('/console/o/team-org/members/invite', { email: 'c@example.com', role: 'owner' })).statusCode,
      403,
      'only owners invite',
    );

    await owner.get('/console/o/team-org/members');
    const lastOwner = await owner.post('/console/o/team-org/members/role', { email: 'olga@example.com', role: 'viewer' });
    assert.equal(lastOwner.statusCode, 409);
    assert.match(lastOwner.body, /An organisation keeps at least one owner\./);
    assert.equal((await owner.post('/console/o/team-org/members/role', { email: 'ben@example.com', role: 'admin' })).statusCode, 303);
    assert.match((await owner.get('/console/o/team-org/members')).body, /<td>ben@example.com<\/td><td>admin<\/td>/);
    assert.equal((await owner.post('/console/o/team-org/members/remove', { email: 'ben@example.com' })).statusCode, 303);
    assert.equal((await ben.get('/console/o/team-org/members')).statusCode, 404, 'a removed member loses access at once');

    const activity = (await owner.get('/console/o/team-org/activity')).body;
    for (const line of [
      'user:olga@example.com</td><td class="action">member.removed</td><td>ben@example.com',
      'user:olga@example.com</td><td class="action">member.role_changed</td><td>ben@example.com',
      'user:ben@example.com</td><td class="action">user.joined',
      'user:olga@example.com</td><td class="action">user.invited</td><td>ben@example.com',
    ]) {
      assert.ok(activity.includes(line), line);
    }
    assert.ok(!activity.includes(url.split('/').pop()!), 'the invitation token is not in the registry');
  });
});
