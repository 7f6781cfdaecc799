import assert from 'node:assert/strict';
import { before, beforeEach, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { postIncident } from '../helpers/incidents.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { webhookParts } from '../helpers/webhooks.js';
import { sql } from 'kysely';
import { emitEvent } from '../../src/webhooks/emit-event.js';
import { allowDirectWrites } from '../helpers/db.js';

// It breaks the outbox with a trigger of its own.
allowDirectWrites();

const HOUR = 3_600_000;

describe('webhook outbox and endpoint health', () => {
  let h: Harness;
  let acme: Tenant;
  let receiver: Receiver;
  let parts: ReturnType<typeof webhookParts>;
  let endpointId: string;
  const teardown = suiteTeardown();
  const events = async () =>
    h.database.db.selectFrom('webhook_events').select(['type', 'payload']).where('org_id', '=', acme.orgId).execute();

  before(async () => {
    h = await buildHarness(teardown);
    h.clock.current = new Date();
    acme = await h.tenant('acme', ['incidents:write'], { intakeMode: 'case' });
    receiver = await startReceiver();
    teardown.after(() => receiver.close());
    parts = webhookParts(h);
    const added = await parts.webhooks.addEndpoint({ org: 'acme', url: receiver.url });
    endpointId = added.id;
    receiver.secret = added.secret;
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.behaviour = () => 200;
  });

  it('writes no event for a rolled-back change, and the event of a change committed beside it', async () => {
    const before = (await events()).length;
    const [failed, committed] = await Promise.allSettled([
      h.database.transaction(async (trx) => {
        await trx.updateTable('organisations').set({ name: 'Renamed' }).where('id', '=', acme.orgId).execute();
        await emitEvent(trx, acme.orgId, 'case.closed', { incident_number: 900 }, h.clock.now().toISOString());
        throw new Error('the change fails after emitting');
      }),
      // Committed in the same SQLite group-commit batch: a failing neighbour does not take it down.
      h.database.transaction((trx) => emitEvent(trx, acme.orgId, 'case.closed', { incident_number: 901 }, h.clock.now().toISOString())),
    ]);
    assert.equal(failed.status, 'rejected');
    assert.equal(committed.status, 'fulfilled');
    const written = (await events()).slice(before).map((e) => JSON.parse(e.payload).data.incident_number);
    assert.deepEqual(written, [901]);
    const org = await h.database.db.selectFrom('organisations').select('name').where('id', '=', acme.orgId).executeTakeFirstOrThrow();
    assert.equal(org.name, 'acme', 'the change itself rolled back too');
    assert.equal(await parts.dispatcher.drain(), 1);
    assert.deepEqual(
      receiver.received.map((r) => JSON.parse(r.body).data.incident_number),
      [901],
    );
  });

  it("writes a case change's event in the change's own transaction: a failure after the event undoes both", async () => {
    const beta = await h.tenant('beta', ['incidents:write']);
    await parts.webhooks.addEndpoint({ org: 'beta', url: receiver.url });
    const n = (await postIncident(h, beta.key, { description: 'rollback' })).json().incident_number as number;
    await h.cases.openCase('beta', { signalNumber: n, notifiable: false, notifiableReason: 'not exploited' });
    const closedEvents = () =>
      h.database.db.selectFrom('webhook_events').select('id').where('org_id', '=', beta.orgId).where('type', '=', 'case.closed').execute();
    // The outbox refuses the delivery row, i.e. fails after closeCase wrote its event row.
    const sqlite = h.database.dialect === 'sqlite';
    const install = sqlite
      ? [sql`create trigger outbox_down before insert on webhook_deliveries begin select raise(abort, 'outbox down'); end`]
      : [
          sql`create function outbox_down() returns trigger language plpgsql as $$ begin raise exception 'outbox down'; end $$`,
          sql`create trigger outbox_down before insert on webhook_deliveries for each row execute function outbox_down()`,
        ];
    for (const statement of install) await statement.execute(h.database.db);
    try {
      await assert.rejects(h.cases.closeCase('beta', n), /outbox down/);
    } finally {
      await (sqlite ? sql`drop trigger outbox_down` : sql`drop trigger outbox_down on webhook_deliveries`).execute(h.database.db);
      if (!sqlite) await sql`drop function outbox_down()`.execute(h.database.db);
    }
    assert.equal((await h.cases.getCase('beta', n)).status, 'open', 'the close rolled back');
    assert.deepEqual(await closedEvents(), [], 'and so did its event');
    await h.cases.closeCase('beta', n);
    assert.equal((await closedEvents()).length, 1, 'the retried close writes its event with it');
    // Its delivery (signed with beta's secret, which the receiver does not hold) stays out of the later tests' way.
    await parts.webhooks.disableEndpoint({ org: 'beta', id: (await parts.webhooks.listEndpoints('beta'))[0]!.id });
  });

  it('refuses a payload that carries a forbidden field', async () => {
    await assert.rejects(
      h.database.transaction((trx) =>
        emitEvent(trx, acme.orgId, 'case.opened', { incident_number: 1, reporter_contact: 'a@b' }, new Date().toISOString()),
      ),
      /may not carry "reporter_contact"/,
    );
    await assert.rejects(
      h.database.transaction((trx) =>
        emitEvent(trx, acme.orgId, 'case.opened', { incident_number: 1, case: { notes: 'x' } }, new Date().toISOString()),
      ),
      /may not carry "case.notes"/,
    );
  });

  it('marks a delivery failed once retries would pass the 24 h window, and replays it on demand', async () => {
    receiver.behaviour = () => 503;
    h.clock.advance(1000);
    await postIncident(h, acme.key, { description: 'never accepted' });
    let attempts = 0;
    for (let i = 0; i < 100; i++) {
      attempts += await parts.dispatcher.runOnce();
      const [latest] = await parts.webhooks.listDeliveries({ org: 'acme', limit: 1 });
      if (latest!.status !== 'pending') break;
      h.clock.current = new Date(latest!.next_attempt_at);
    }
    const [failed] = await parts.webhooks.listDeliveries({ org: 'acme', limit: 1 });
    assert.equal(failed!.status, 'failed');
    assert.equal(failed!.attempt_log.length, attempts);
    // 60 s doubling to the 1 h cap with 0.75 jitter: ~30 attempts fit in 24 h.
    assert.ok(attempts > 20 && attempts < 40, `${attempts} attempts`);
    const span = Date.parse(failed!.attempt_log.at(-1)!.attempted_at) - Date.parse(failed!.attempt_log[0]!.attempted_at);
    assert.ok(span <= 24 * HOUR && span > 23 * HOUR, `retried for ${span / HOUR} h`);
    // The endpoint has been failing for a day only: still active.
    assert.equal((await parts.webhooks.listEndpoints('acme'))[0]!.status, 'active');

    h.clock.current = new Date();
    receiver.behaviour = () => 200;
    receiver.received.length = 0;
    const replayed = await parts.webhooks.replay({ org: 'acme', delivery: failed!.id });
    assert.equal(replayed.status, 'pending');
    assert.equal(await parts.dispatcher.runOnce(), 1);
    assert.equal(receiver.received[0]!.id, failed!.event_id, 'a replay keeps the webhook-id');
    assert.equal(receiver.received[0]!.verified, true);
    const [after] = await parts.webhooks.listDeliveries({ org: 'acme', limit: 1 });
    assert.equal(after!.status, 'succeeded');
    assert.equal((await parts.webhooks.listEndpoints('acme'))[0]!.failing_since, null, 'a success ends the run of failures');
  });

  it('disables an endpoint whose every delivery failed for 3 days, and ends its pending deliveries', async () => {
    receiver.behaviour = () => 500;
    const start = h.clock.now().getTime();
    await postIncident(h, acme.key, { description: 'day 0' });
    await parts.dispatcher.runOnce();
    h.clock.current = new Date(start + 47 * HOUR);
    await postIncident(h, acme.key, { description: 'day 2' });
    await parts.dispatcher.runOnce();
    assert.equal((await parts.webhooks.listEndpoints('acme'))[0]!.status, 'active');
    h.clock.current = new Date(start + 72 * HOUR + 1);
    await postIncident(h, acme.key, { description: 'day 3' });
    await parts.dispatcher.runOnce();
    const [endpoint] = await parts.webhooks.listEndpoints('acme');
    assert.equal(endpoint!.status, 'disabled');
    assert.match(endpoint!.disabled_reason!, /every delivery failed since/);
    const pending = await parts.webhooks.listDeliveries({ org: 'acme', status: 'pending' });
    assert.deepEqual(pending, []);
    const [last] = await parts.webhooks.listDeliveries({ org: 'acme', limit: 1 });
    assert.equal(last!.status, 'failed');
    // A disabled endpoint gets no new deliveries, and its deliveries cannot be replayed.
    await postIncident(h, acme.key, { description: 'after' });
    assert.equal(await parts.dispatcher.runOnce(), 0);
    await assert.rejects(parts.webhooks.replay({ org: 'acme', delivery: last!.id }), /is disabled/);
    h.clock.current = new Date();
    assert.equal(endpointId, endpoint!.id);
  });
});
