import assert from 'node:assert/strict';
import { before, beforeEach, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { caseServices, postIncident } from '../helpers/incidents.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { webhookParts } from '../helpers/webhooks.js';
import { AppError } from '../../src/errors.js';
import { webhookSecrets } from '../../src/webhooks/secret-storage.js';
import { createWebhookService } from '../../src/webhooks/webhooks.service.js';

const MIN = 60_000;

// The dispatcher against a real receiver on 127.0.0.1 that verifies with the standardwebhooks
// library. The clock is the injected one, set to the real time so the receiver's 5-minute
// timestamp tolerance holds; retries are made due by moving it.
describe('webhook delivery', () => {
  let h: Harness;
  let acme: Tenant;
  let receiver: Receiver;
  let parts: ReturnType<typeof webhookParts>;
  let endpointId: string;
  const teardown = suiteTeardown();

  const openCase = async () =>
    (await postIncident(h, acme.key, { description: 'Exploited RCE in httpd', sku: 'RTR-1' })).json().incident_number as number;
  const deliveries = () => parts.webhooks.listDeliveries({ org: 'acme', endpoint: endpointId });

  before(async () => {
    h = await buildHarness(teardown);
    h.clock.current = new Date();
    acme = await h.tenant('acme', ['incidents:write'], { intakeMode: 'case' });
    await h.products.addProduct('acme', 'RTR-1', { name: 'Router' });
    receiver = await startReceiver();
    teardown.after(() => receiver.close());
    parts = webhookParts(h);
    const added = await parts.webhooks.addEndpoint({ org: 'acme', url: receiver.url });
    endpointId = added.id;
    receiver.secret = added.secret;
  });
  beforeEach(() => {
    // Each test's deliveries are the newest in the log.
    h.clock.advance(1000);
    receiver.received.length = 0;
    receiver.behaviour = () => 200;
  });

  it('delivers a case.opened signed by the Standard Webhooks scheme, logged as one successful attempt', async () => {
    const number = await openCase();
    assert.equal(await parts.dispatcher.runOnce(), 1);
    assert.equal(receiver.received.length, 1);
    const [request] = receiver.received;
    assert.equal(request!.verified, true);
    assert.match(request!.id, /^msg_[0-9a-f]{32}$/);
    assert.match(request!.signature, /^v1,[A-Za-z0-9+/]+=*$/);
    assert.equal(request!.timestamp, String(Math.floor(h.clock.now().getTime() / 1000)));
    assert.equal(request!.headers['content-type'], 'application/json');
    const body = JSON.parse(request!.body);
    assert.deepEqual(Object.keys(body), ['type', 'timestamp', 'data']);
    assert.equal(body.type, 'case.opened');
    assert.equal(body.data.incident_number, number);
    assert.equal(body.data.product_sku, 'RTR-1');
    assert.equal(body.data.title, 'Exploited RCE in httpd');
    assert.ok(body.data.due.early_warning && body.data.due.notification);
    // The secret is stored sealed under CONSOLE_SECRET: the database alone cannot sign.
    const stored = await h.database.db
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', endpointId)
      .executeTakeFirstOrThrow();
    assert.match(stored.secret, /^v1\./);
    assert.equal(stored.secret.includes(receiver.secret!.slice(6)), false);
    const [logged] = await deliveries();
    assert.equal(logged!.event_id, request!.id);
    assert.equal(logged!.status, 'succeeded');
    assert.equal(logged!.attempts, 1);
    assert.deepEqual(
      logged!.attempt_log.map((a) => [a.status_code, a.error]),
      [[200, null]],
    );
    assert.equal(await parts.dispatcher.runOnce(), 0, 'nothing is sent twice');
  });

  it('retries after 500s with growing backoff, under the same webhook-id, until a 2xx', async () => {
    let calls = 0;
    receiver.behaviour = () => (++calls <= 2 ? 500 : 204);
    await openCase();
    assert.equal(await parts.dispatcher.runOnce(), 1);
    const [afterFirst] = await deliveries();
    assert.equal(afterFirst!.status, 'pending');
    const firstWait = Date.parse(afterFirst!.next_attempt_at) - h.clock.now().getTime();
    // Base 60 s, equal jitter with random() = 0.5: three quarters of the base.
    assert.equal(firstWait, 45_000);
    assert.equal(await parts.dispatcher.runOnce(), 0, 'not due before its backoff');
    h.clock.advance(firstWait);
    assert.equal(await parts.dispatcher.runOnce(), 1);
    const [afterSecond] = await deliveries();
    assert.equal(Date.parse(afterSecond!.next_attempt_at) - h.clock.now().getTime(), 90_000, 'the wait doubles');
    h.clock.advance(90_000);
    assert.equal(await parts.dispatcher.runOnce(), 1);
    const [done] = await deliveries();
    assert.equal(done!.status, 'succeeded');
    assert.deepEqual(
      done!.attempt_log.map((a) => a.status_code),
      [500, 500, 204],
    );
    assert.equal(done!.attempt_log[0]!.error, 'HTTP 500');
    assert.equal(new Set(receiver.received.map((r) => r.id)).size, 1, 'one webhook-id across retries');
    assert.equal(new Set(receiver.received.map((r) => r.body)).size, 1, 'the same body across retries');
    assert.equal(
      receiver.received.every((r) => r.verified),
      true,
    );
  });

  it('cuts a receiver that does not answer at the timeout and retries it', async () => {
    let calls = 0;
    receiver.behaviour = () => (++calls === 1 ? 'hang' : 200);
    await openCase();
    const started = performance.now();
    assert.equal(await parts.dispatcher.runOnce(), 1);
    assert.ok(performance.now() - started < 2_000, 'the 400 ms timeout ends the attempt');
    const [timedOut] = await deliveries();
    assert.equal(timedOut!.status, 'pending');
    assert.equal(timedOut!.last_status, null);
    assert.match(timedOut!.last_error!, /timed out after 400 ms/);
    assert.ok(timedOut!.attempt_log[0]!.duration_ms >= 390);
    h.clock.advance(MIN);
    assert.equal(await parts.dispatcher.runOnce(), 1);
    assert.equal((await deliveries())[0]!.status, 'succeeded');
  });

  it('sends both signatures during a rotation grace, then only the new one', async () => {
    const oldSecret = receiver.secret!;
    const rotated = await parts.webhooks.rotateSecret({ org: 'acme', id: endpointId, graceMs: 60 * MIN });
    assert.notEqual(rotated.secret, oldSecret);
    assert.equal(rotated.previous_secret_expires_at, new Date(h.clock.now().getTime() + 60 * MIN).toISOString());
    receiver.secret = rotated.secret;
    await openCase();
    await parts.dispatcher.runOnce();
    const during = receiver.received.at(-1)!;
    assert.equal(during.signature.split(' ').length, 2);
    assert.equal(receiver.verifiesWith(oldSecret, during), true, 'a receiver still on the old secret verifies');
    assert.equal(receiver.verifiesWith(rotated.secret, during), true, 'a receiver on the new secret verifies');
    // Past the grace (the clock moved 61 min; the receiver's tolerance is against the real time,
    // so the check below is done on the signature count and the old secret only).
    h.clock.advance(61 * MIN);
    await openCase();
    await parts.dispatcher.runOnce();
    const after = receiver.received.at(-1)!;
    assert.equal(after.signature.split(' ').length, 1);
    h.clock.current = new Date();
  });

  it('refuses to add or rotate without CONSOLE_SECRET, since secrets are stored sealed under it', async () => {
    const unkeyed = createWebhookService(h.database, h.orgs, { allowPrivate: true, secrets: webhookSecrets(null), clock: h.clock.now });
    const refused = (e: unknown) =>
      e instanceof AppError && e.code === 'service_unavailable' && /CONSOLE_SECRET is not set/.test(e.message);
    await assert.rejects(unkeyed.addEndpoint({ org: 'acme', url: receiver.url }), refused);
    await assert.rejects(unkeyed.rotateSecret({ org: 'acme', id: endpointId, graceMs: 0 }), refused);
    assert.equal((await unkeyed.listEndpoints('acme')).length, 1, 'listing needs no key');
  });

  it('pins the connection to the checked address: a name only the injected lookup knows is delivered', async () => {
    const lookups: string[] = [];
    const pinned = webhookParts(h, {}, async (host) => {
      lookups.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    });
    const other = await h.tenant('pinned', ['incidents:write'], { intakeMode: 'case' });
    const added = await pinned.webhooks.addEndpoint({ org: 'pinned', url: `http://receiver.invalid:${receiver.port}/hooks` });
    receiver.secret = added.secret;
    await postIncident(h, other.key, { description: 'x' });
    assert.equal(await pinned.dispatcher.runOnce(), 1);
    assert.equal(receiver.received.at(-1)!.verified, true);
    assert.equal(receiver.received.at(-1)!.headers.host, `receiver.invalid:${receiver.port}`);
    assert.deepEqual(lookups, ['receiver.invalid', 'receiver.invalid'], 'checked at add time and again at delivery');
  });

  it('carries no notes, reporter, secret or digest in any payload', async () => {
    const svc = caseServices(h);
    const other = await h.tenant('quiet', ['incidents:write']);
    const added = await parts.webhooks.addEndpoint({ org: 'quiet', url: receiver.url });
    receiver.secret = added.secret;
    const n = (await postIncident(h, other.key, { description: 'reported by alice@example.com' })).json().incident_number as number;
    await svc.cases.openCase('quiet', { signalNumber: n, notifiable: true, note: 'VAULT-NOTE call the CERT' });
    // A case closes once every due stage is filed (art14.md); each filing is an event too.
    await svc.cases.recordEarlyWarning('quiet', n);
    await svc.cases.recordNotification('quiet', n);
    await svc.cases.closeCase('quiet', n);
    assert.equal(await parts.dispatcher.runOnce(), 4);
    const bodies = receiver.received.slice(-4).map((r) => r.body);
    assert.deepEqual(
      bodies.map((b) => JSON.parse(b).type),
      ['case.opened', 'case.report_filed', 'case.report_filed', 'case.closed'],
    );
    for (const body of bodies) {
      assert.equal(body.includes('VAULT-NOTE'), false);
      assert.equal(body.includes(added.secret), false);
      assert.doesNotMatch(body, /note|reporter|contact|secret|digest/);
    }
  });
});
