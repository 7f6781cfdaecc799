import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { time } from '../../src/console/format.js';
import { listRegistry } from '../../src/registry/registry.service.js';
import { useHarness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { postIncident } from '../helpers/incidents.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { TEST_WEBHOOK_ENV, webhookParts } from '../helpers/webhooks.js';

// The webhook pages over HTTP as a browser without JavaScript uses them: the same webhook
// service as `cra-admin webhook`, a real receiver on 127.0.0.1, CSRF, roles and tenancy.

const secretOf = (body: string) => /id="webhook-secret"[^>]*>(whsec_[A-Za-z0-9+/=]+)</.exec(body)?.[1];
const HOUR = 3_600_000;

describe('console webhook pages with a real receiver', () => {
  const harness = useHarness(TEST_WEBHOOK_ENV);
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it('adds an endpoint (secret once), logs the delivery, rotates, disables, enables, replays and deletes; the registry names the user', async () => {
    const h = harness();
    // The receiver checks webhook-timestamp against its own clock (5 minutes' tolerance).
    h.clock.current = new Date();
    const parts = webhookParts(h);
    const org = await h.tenant('hooks', ['incidents:write']);
    const { agent } = await signedInAgent(h, 'hooks', 'admin@example.com', 'admin');
    const base = '/console/o/hooks/webhooks';

    const empty = await agent.get(base);
    assert.equal(empty.statusCode, 200);
    assert.match(empty.body, /No endpoint yet/);
    assert.match(empty.body, /Add an endpoint/);

    const badUrl = await agent.post(base, { url: 'ftp://example.com/hook', events: 'case.opened' });
    assert.equal(badUrl.statusCode, 400);
    assert.match(badUrl.body, /id="url-error">an endpoint URL must use https</);
    assert.match(badUrl.body, /value="ftp:\/\/example.com\/hook"/, 'the form keeps what was typed');
    const badEvent = await agent.post(base, { url: receiver.url, events: 'case.deleted' });
    assert.equal(badEvent.statusCode, 400);
    assert.match(badEvent.body, /id="events-error">Choose among the listed events\.</);
    assert.deepEqual(await h.webhooks.listEndpoints('hooks'), []);

    const added = await agent.post(base, { url: receiver.url, events: ['case.opened', 'case.closed'] });
    assert.equal(added.statusCode, 200);
    assert.equal(added.headers['cache-control'], 'no-store');
    const secret = secretOf(added.body);
    assert.ok(secret, 'the signing secret is shown once');
    receiver.secret = secret;
    const [endpoint] = await h.webhooks.listEndpoints('hooks');
    assert.deepEqual(endpoint!.events, ['case.opened', 'case.closed']);
    const list = await agent.get(base);
    assert.match(list.body, new RegExp(`href="${base}/${endpoint!.id}">${receiver.url}<`));
    assert.match(list.body, /case.opened, case.closed/);
    assert.doesNotMatch(list.body, /whsec_/, 'never shown again');

    // An event of the organisation reaches the receiver, signed, and the log shows it.
    const n = (await postIncident(h, org.key, { description: 'overheating' })).json().incident_number as number;
    await h.cases.openCase('hooks', { signalNumber: n, notifiable: true });
    assert.equal(await parts.dispatcher.drain(), 1);
    assert.equal(receiver.received.length, 1);
    assert.equal(receiver.received[0]!.verified, true);
    const page = `${base}/${endpoint!.id}`;
    const logged = await agent.get(page);
    assert.equal(logged.statusCode, 200);
    assert.match(logged.body, /<code>case.opened<\/code>/);
    assert.match(logged.body, />succeeded</);
    assert.match(logged.body, /HTTP 200/);
    assert.doesNotMatch(logged.body, /whsec_/);

    const badGrace = await agent.post(`${page}/rotate`, { grace: 'soon' });
    assert.equal(badGrace.statusCode, 400);
    assert.match(badGrace.body, /id="grace-error">Give the grace period as a number and a unit/);
    const rotated = await agent.post(`${page}/rotate`, { grace: '2h' });
    assert.equal(rotated.statusCode, 200);
    const newSecret = secretOf(rotated.body);
    assert.ok(newSecret && newSecret !== secret);
    assert.match(
      rotated.body,
      new RegExp(
        `id="grace-until">still signs beside the new one until ${time(new Date(h.clock.now().getTime() + 2 * HOUR).toISOString())}<`,
      ),
    );
    assert.match((await agent.get(page)).body, /still signs beside the current one until/);

    const disabled = await agent.post(`${page}/disable`, {});
    assert.equal(disabled.statusCode, 303);
    assert.equal(disabled.headers.location, `${page}?done=disabled`);
    const disabledPage = await agent.get(page);
    assert.match(disabledPage.body, /disabled<\/span> since [^<]*: disabled by an administrator/);
    assert.match(disabledPage.body, />Enable</);
    assert.match((await agent.get(base)).body, /disabled<\/span> [^<]*: disabled by an administrator/);
    const [delivery] = await h.webhooks.listDeliveries({ org: 'hooks' });
    const refused = await agent.post(`${page}/replay`, { delivery: delivery!.id });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /is disabled; add a new endpoint/);
    assert.equal((await agent.post(`${page}/disable`, {})).statusCode, 400, 'disabling twice says so');

    assert.equal((await agent.post(`${page}/enable`, {})).statusCode, 303);
    assert.match((await agent.get(page)).body, /id="endpoint-state"><span class="ok">enabled</);
    const replayed = await agent.post(`${page}/replay`, { delivery: delivery!.id });
    assert.equal(replayed.statusCode, 303);
    assert.equal(replayed.headers.location, `${page}?done=replayed`);
    receiver.secret = newSecret!;
    assert.equal(await parts.dispatcher.drain(), 1);
    assert.equal(receiver.received[1]!.id, receiver.received[0]!.id, 'a replay keeps the webhook-id');
    assert.equal(receiver.received[1]!.verified, true);
    assert.equal(receiver.verifiesWith(secret!, receiver.received[1]!), true, 'during the grace both secrets sign');
    const afterReplay = await agent.get(page);
    assert.match(afterReplay.body, /<summary>2<\/summary>/, 'both attempts are in the log');

    const deleted = await agent.post(`${page}/delete`, {});
    assert.equal(deleted.statusCode, 303);
    assert.equal(deleted.headers.location, `${base}?done=deleted`);
    assert.deepEqual(await h.webhooks.listEndpoints('hooks'), []);
    assert.equal((await agent.get(page)).statusCode, 404);

    const entries = [];
    for await (const e of listRegistry(h.database, org.orgId)) entries.push(e);
    assert.deepEqual(
      entries.filter((e) => e.action.startsWith('webhook.')).map((e) => [e.actor, e.action]),
      [
        ['user:admin@example.com', 'webhook.endpoint_added'],
        ['user:admin@example.com', 'webhook.secret_rotated'],
        ['user:admin@example.com', 'webhook.endpoint_disabled'],
        ['user:admin@example.com', 'webhook.endpoint_enabled'],
        ['user:admin@example.com', 'webhook.delivery_replayed'],
        ['user:admin@example.com', 'webhook.endpoint_deleted'],
      ],
    );
    assert.doesNotMatch(JSON.stringify(entries), /whsec_/, 'no secret in the registry');
  });
});

describe('console webhook pages: SSRF, CSRF, roles and tenancy', () => {
  const harness = useHarness();
  const PUBLIC_URL = 'https://93.184.216.34/hooks';

  it('refuses loopback, private and metadata addresses next to the field', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'ssrf-org' });
    const { agent } = await signedInAgent(h, 'ssrf-org', 'owner@example.com', 'owner');
    await agent.get('/console/o/ssrf-org/webhooks');
    for (const [url, address] of [
      ['https://127.0.0.1/hook', '127.0.0.1'],
      ['https://10.1.2.3/hook', '10.1.2.3'],
      ['https://169.254.169.254/latest', '169.254.169.254'],
    ]) {
      const r = await agent.post('/console/o/ssrf-org/webhooks', { url: url! });
      assert.equal(r.statusCode, 400, url);
      assert.match(r.body, new RegExp(`id="url-error">the host &quot;${address!.replaceAll('.', '\\.')}&quot; resolves to`), url);
    }
    assert.deepEqual(await h.webhooks.listEndpoints('ssrf-org'), []);
    const refused = await agent.post('/console/o/ssrf-org/webhooks', { url: PUBLIC_URL }, { csrf: false });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /Form expired/);
    assert.deepEqual(await h.webhooks.listEndpoints('ssrf-org'), []);
    const all = await agent.post('/console/o/ssrf-org/webhooks', { url: PUBLIC_URL });
    assert.equal(all.statusCode, 200);
    assert.deepEqual((await h.webhooks.listEndpoints('ssrf-org'))[0]!.events, ['*'], 'no event ticked: every event');
  });

  it("lets viewers and analysts read but not change, and answers 404 for another organisation's endpoints", async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'mine' });
    await h.orgs.createOrg({ slug: 'theirs' });
    const mine = await h.webhooks.addEndpoint({ org: 'mine', url: PUBLIC_URL, events: 'case.opened' });
    const theirs = await h.webhooks.addEndpoint({ org: 'theirs', url: 'https://93.184.216.35/their-hook' });
    for (const role of ['viewer', 'analyst']) {
      const { agent } = await signedInAgent(h, 'mine', `${role}@example.com`, role);
      const list = await agent.get('/console/o/mine/webhooks');
      assert.equal(list.statusCode, 200);
      assert.match(list.body, /93\.184\.216\.34/);
      assert.doesNotMatch(list.body, /Add an endpoint/, `a${role === 'analyst' ? 'n' : ''} ${role} sees no form to change anything`);
      const page = await agent.get(`/console/o/mine/webhooks/${mine.id}`);
      assert.equal(page.statusCode, 200);
      assert.doesNotMatch(page.body, /Rotate the secret|Disable|Delete/);
      for (const action of ['disable', 'delete', 'rotate']) {
        const r = await agent.post(`/console/o/mine/webhooks/${mine.id}/${action}`, { grace: '' });
        assert.equal(r.statusCode, 403, `${role} ${action}`);
      }
      assert.equal((await agent.post('/console/o/mine/webhooks', { url: PUBLIC_URL })).statusCode, 403);
    }
    assert.equal((await h.webhooks.listEndpoints('mine')).length, 1);
    assert.equal((await h.webhooks.listEndpoints('mine'))[0]!.status, 'active');

    const { agent: owner } = await signedInAgent(h, 'mine', 'mine-owner@example.com', 'owner');
    for (const url of [
      '/console/o/theirs/webhooks',
      `/console/o/theirs/webhooks/${theirs.id}`,
      `/console/o/mine/webhooks/${theirs.id}`,
      '/console/o/mine/webhooks/not-a-uuid',
    ]) {
      const r = await owner.get(url);
      assert.equal(r.statusCode, 404, url);
      assert.doesNotMatch(r.body, /their-hook/);
    }
    await owner.get('/console/o/mine/webhooks');
    for (const action of ['disable', 'delete', 'rotate', 'enable', 'replay']) {
      const r = await owner.post(`/console/o/mine/webhooks/${theirs.id}/${action}`, { grace: '', delivery: theirs.id });
      assert.equal(r.statusCode, 404, action);
    }
    const [their] = await h.webhooks.listEndpoints('theirs');
    assert.equal(their!.status, 'active');
    assert.equal(their!.previous_secret_expires_at, null);
  });
});
