import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/index.js';
import { addCalendarMonthUtc } from '../../src/cases/stage-rules.js';
import { reachedThreshold } from '../../src/clocks/clock-events.js';
import { createScheduler } from '../../src/clocks/scheduler.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { caseServices, postIncident } from '../helpers/incidents.js';
import { webhookParts } from '../helpers/webhooks.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('reachedThreshold', () => {
  const due = new Date('2026-03-29T01:30:00Z'); // across the EU daylight-saving change: UTC arithmetic only
  const at = (msBefore: number) => reachedThreshold(due, new Date(due.getTime() - msBefore));
  it('is null more than 6 h ahead, then 6h, 1h, overdue at the due time', () => {
    assert.equal(at(6 * HOUR + 1), null);
    assert.equal(at(6 * HOUR), '6h');
    assert.equal(at(HOUR + 1), '6h');
    assert.equal(at(HOUR), '1h');
    assert.equal(at(1), '1h');
    assert.equal(at(0), 'overdue');
    assert.equal(at(-5 * 86_400_000), 'overdue');
  });
});

describe('the clock-event scheduler', () => {
  let h: Harness;
  let acme: Tenant;
  let svc: ReturnType<typeof caseServices>;
  const teardown = suiteTeardown();
  const scheduler = () => webhookParts(h).scheduler;
  const eventsOf = async (type?: string) => {
    let q = h.database.db.selectFrom('webhook_events').select(['type', 'payload']).where('org_id', '=', acme.orgId);
    if (type) q = q.where('type', '=', type);
    return (await q.orderBy('created_at').execute()).map((e) => ({ type: e.type, data: JSON.parse(e.payload).data }));
  };
  const openCaseAware = async (awareAt: Date, notifiable = true) => {
    const n = (await postIncident(h, acme.key, { description: 'clock' })).json().incident_number as number;
    await svc.cases.openCase('acme', { signalNumber: n, notifiable, awareAt, notifiableReason: notifiable ? undefined : 'not exploited' });
    return n;
  };

  before(async () => {
    h = await buildHarness(teardown);
    acme = await h.tenant('acme', ['incidents:write']);
    svc = caseServices(h);
    // An endpoint, so the events also become deliveries.
    await webhookParts(h).webhooks.addEndpoint({ org: 'acme', url: 'http://127.0.0.1:9/none' });
  });

  it('fires 6 h, 1 h and overdue once each per stage, across restarts, and stops once the stage is filed', async () => {
    const start = h.clock.now().getTime();
    const n = await openCaseAware(new Date(start - 18 * HOUR + MIN)); // early warning due in 6 h 1 min
    assert.equal(await scheduler().runOnce(), 0);
    h.clock.advance(2 * MIN);
    assert.equal(await scheduler().runOnce(), 1);
    assert.equal(await scheduler().runOnce(), 0, 'a second tick does not repeat it');
    assert.equal(
      await createScheduler({ database: h.database, intervalMs: 1000, clock: h.clock.now }).runOnce(),
      0,
      'nor does a restarted scheduler',
    );
    h.clock.advance(5 * HOUR);
    assert.equal(await scheduler().runOnce(), 1);
    h.clock.advance(HOUR);
    assert.equal(await scheduler().runOnce(), 1);
    for (let i = 0; i < 3; i++) {
      h.clock.advance(HOUR);
      assert.equal(await scheduler().runOnce(), 0);
    }
    const due = new Date(start - 18 * HOUR + MIN + 24 * HOUR).toISOString();
    assert.deepEqual(await eventsOf(), [
      { type: 'case.opened', data: (await eventsOf('case.opened'))[0]!.data },
      { type: 'case.stage_due_soon', data: { incident_number: n, stage: 'early_warning', due, threshold: '6h' } },
      { type: 'case.stage_due_soon', data: { incident_number: n, stage: 'early_warning', due, threshold: '1h' } },
      { type: 'case.stage_overdue', data: { incident_number: n, stage: 'early_warning', due } },
    ]);
    const deliveries = await h.database.db.selectFrom('webhook_deliveries').select('id').where('org_id', '=', acme.orgId).execute();
    assert.equal(deliveries.length, 4, 'each event has its delivery');
    // The notification (due at 72 h) reaches its thresholds later; filed early, it never fires.
    await svc.cases.recordNotification('acme', n);
    h.clock.advance(3 * 86_400_000);
    assert.equal(await scheduler().runOnce(), 0);
    await svc.cases.recordEarlyWarning('acme', n); // a case closes once every due stage is filed (art14.md)
    await svc.cases.closeCase('acme', n);
  });

  it('fires only the tightest threshold when first seen late, and nothing for non-notifiable or closed cases', async () => {
    const now = h.clock.now().getTime();
    const before = (await eventsOf()).length;
    const late = await openCaseAware(new Date(now - 23.5 * HOUR)); // first seen 30 min before the due time
    await openCaseAware(new Date(now - 23.5 * HOUR), false);
    const closed = await openCaseAware(new Date(now - 30 * HOUR));
    await svc.cases.recordEarlyWarning('acme', closed);
    await svc.cases.recordNotification('acme', closed);
    await svc.cases.closeCase('acme', closed);
    assert.equal(await scheduler().runOnce(), 1);
    const fired = (await eventsOf()).slice(before).filter((e) => e.type.startsWith('case.stage'));
    assert.deepEqual(
      fired.map((e) => [e.type, e.data.incident_number, e.data.threshold]),
      [['case.stage_due_soon', late, '1h']],
    );
    await svc.cases.recordEarlyWarning('acme', late);
    await svc.cases.recordNotification('acme', late);
    await svc.cases.closeCase('acme', late);
  });

  it('announces a key expiring within 7 days once', async () => {
    const expiresAt = new Date(h.clock.now().getTime() + 8 * 86_400_000);
    await h.keys.createKey({ org: 'acme', name: 'ci', scopes: ['products:read'], expiresAt });
    assert.equal((await eventsOf('key.expiring')).length, 0);
    assert.equal(await scheduler().runOnce(), 0);
    h.clock.advance(86_400_000 + MIN);
    assert.equal(await scheduler().runOnce(), 1);
    assert.equal(await scheduler().runOnce(), 0);
    const [event] = await eventsOf('key.expiring');
    assert.deepEqual(Object.keys(event!.data).sort(), ['expires_at', 'key_name', 'prefix']);
    assert.equal(event!.data.key_name, 'ci');
    assert.equal(event!.data.expires_at, expiresAt.toISOString());
    assert.match(event!.data.prefix, /^cra_/);
  });

  it('announces a broken registry chain from the hourly verification, once per break', async () => {
    h.clock.advance(HOUR);
    assert.equal(await scheduler().runOnce(), 0, 'an intact chain');
    await h.database.transaction((trx) =>
      trx
        .updateTable('registry_entries')
        .set({ details: '{"forged":true}' })
        .where('org_id', '=', acme.orgId)
        .where('seq', '=', 3)
        .execute(),
    );
    assert.equal(await scheduler().runOnce(), 0, 'this hour was verified already');
    h.clock.advance(HOUR);
    assert.equal(await scheduler().runOnce(), 1);
    assert.deepEqual(
      (await eventsOf('registry.verification_failed')).map((e) => e.data),
      [{ first_broken: 3 }],
    );
    h.clock.advance(HOUR);
    assert.equal(await scheduler().runOnce(), 0, 'the same break is not announced every hour');
    const hour = h.clock.now().toISOString().slice(0, 13);
    assert.equal((await h.database.db.selectFrom('scheduler_runs').select('slot').where('slot', '=', hour).execute()).length, 1);
  });

  it('fires each threshold once with two instances ticking at the same time on one database', async () => {
    const other = openDatabase(h.config.databaseUrl);
    teardown.after(() => other.close());
    const cases: number[] = [];
    const now = h.clock.now().getTime();
    for (const hoursLeft of [5.5, 0.5, -1]) cases.push(await openCaseAware(new Date(now - (24 - hoursLeft) * HOUR)));
    const instances = [h.database, other].map((database) => createScheduler({ database, intervalMs: 1000, clock: h.clock.now }));
    const written = await Promise.all(Array.from({ length: 8 }, (_, i) => instances[i % 2]!.runOnce()));
    assert.equal(
      written.reduce((a, b) => a + b, 0),
      3,
    );
    const stageEvents = (await eventsOf()).filter((e) => e.type.startsWith('case.stage') && cases.includes(e.data.incident_number));
    assert.deepEqual(stageEvents.map((e) => [e.data.incident_number, e.type, e.data.threshold]).sort(), [
      [cases[0], 'case.stage_due_soon', '6h'],
      [cases[1], 'case.stage_due_soon', '1h'],
      [cases[2], 'case.stage_overdue', undefined],
    ]);
  });

  it('fires 6 h, 1 h and overdue for intermediate and final reports, once each across restarts and two instances', async () => {
    const t0 = h.clock.now().getTime();
    const n = (await postIncident(h, acme.key, { description: 'later stages' })).json().incident_number as number;
    await svc.cases.openCase('acme', { signalNumber: n, notifiable: true, kind: 'vulnerability', awareAt: new Date(t0 - 20 * DAY) });
    await svc.cases.recordEarlyWarning('acme', n);
    await svc.cases.recordNotification('acme', n);
    const intermediateDue = new Date(t0 + 6 * HOUR + MIN);
    await h.reports.requestIntermediate('acme', n, intermediateDue);
    // A fix available 13.5 days ago: the final report is due 14 days after it, in 12 h.
    await h.reports.recordFix('acme', n, new Date(t0 + 12 * HOUR - 14 * DAY), 'patched firmware');
    const finalDue = new Date(t0 + 12 * HOUR);
    const stageEventsOf = async () =>
      (await eventsOf()).filter((e) => e.type.startsWith('case.stage') && e.data.incident_number === n).map((e) => e.data);
    const other = openDatabase(h.config.databaseUrl);
    teardown.after(() => other.close());
    const instances = [h.database, other].map((database) => createScheduler({ database, intervalMs: 1000, clock: h.clock.now }));
    /** Two ticks on each of two instances at once, then a restarted scheduler: this case's stage events written. */
    const tick = async () => {
      const before = (await stageEventsOf()).length;
      await Promise.all([...instances.map((i) => i.runOnce()), ...instances.map((i) => i.runOnce())]);
      await scheduler().runOnce();
      return (await stageEventsOf()).length - before;
    };

    assert.equal(await tick(), 0, 'nothing 6 h 1 min ahead');
    h.clock.advance(2 * MIN);
    assert.equal(await tick(), 1, 'intermediate report 1: due in 6 h');
    h.clock.advance(5 * HOUR);
    assert.equal(await tick(), 1, 'intermediate report 1: due in 1 h');
    h.clock.advance(HOUR);
    assert.equal(await tick(), 2, 'intermediate report 1 overdue; final report due in 6 h');
    h.clock.advance(5 * HOUR);
    assert.equal(await tick(), 1, 'final report: due in 1 h');
    h.clock.advance(HOUR);
    assert.equal(await tick(), 1, 'final report overdue');
    for (let i = 0; i < 3; i++) {
      h.clock.advance(HOUR);
      assert.equal(await tick(), 0);
    }
    const intermediate = { incident_number: n, stage: 'intermediate', seq: 1, due: intermediateDue.toISOString() };
    const final = { incident_number: n, stage: 'final', due: finalDue.toISOString() };
    assert.deepEqual(await stageEventsOf(), [
      { ...intermediate, threshold: '6h' },
      { ...intermediate, threshold: '1h' },
      intermediate,
      { ...final, threshold: '6h' },
      { ...final, threshold: '1h' },
      final,
    ]);

    // A second intermediate report is its own stage with its own thresholds; a filed one fires nothing.
    await h.reports.requestIntermediate('acme', n, new Date(h.clock.now().getTime() + 30 * MIN));
    assert.equal(await tick(), 1);
    assert.deepEqual((await stageEventsOf()).at(-1), {
      incident_number: n,
      stage: 'intermediate',
      seq: 2,
      due: new Date(h.clock.now().getTime() + 30 * MIN).toISOString(),
      threshold: '1h',
    });
  });

  it("fires for an incident's final report, due a calendar month after its notification was filed", async () => {
    const t0 = h.clock.now().getTime();
    const n = (await postIncident(h, acme.key, { description: 'incident' })).json().incident_number as number;
    const notifiedAt = new Date(t0 - 20 * DAY);
    await svc.cases.openCase('acme', { signalNumber: n, notifiable: true, kind: 'incident', awareAt: new Date(t0 - 21 * DAY) });
    await svc.cases.recordEarlyWarning('acme', n, new Date(t0 - 21 * DAY + HOUR));
    await svc.cases.recordNotification('acme', n, notifiedAt);
    const due = addCalendarMonthUtc(notifiedAt);
    h.clock.current = new Date(due.getTime() - 3 * HOUR);
    await scheduler().runOnce();
    h.clock.current = new Date(due.getTime() + MIN);
    await scheduler().runOnce();
    await scheduler().runOnce();
    const fired = (await eventsOf()).filter((e) => e.type.startsWith('case.stage') && e.data.incident_number === n);
    assert.deepEqual(
      fired.map((e) => [e.type, e.data.stage, e.data.due, e.data.threshold]),
      [
        ['case.stage_due_soon', 'final', due.toISOString(), '6h'],
        ['case.stage_overdue', 'final', due.toISOString(), undefined],
      ],
    );
  });
});
