import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { caseServices, postIncident } from '../helpers/incidents.js';

const H = 3_600_000;

describe('cases (console decisions on signals)', () => {
  let h: Harness;
  let acme: Tenant;
  let svc: ReturnType<typeof caseServices>;
  const teardown = suiteTeardown();
  const rejects = (promise: Promise<unknown>, code: string, message?: RegExp) =>
    assert.rejects(promise, (e: unknown) => e instanceof AppError && e.code === code && (!message || message.test(e.message)));
  const signal = async (body: Record<string, unknown>) =>
    (await postIncident(h, acme.key, { description: 'report', ...body })).json().incident_number as number;
  const registryActions = async (orgId: string) =>
    (await h.database.db.selectFrom('registry_entries').selectAll().where('org_id', '=', orgId).orderBy('seq').execute()).map((e) => ({
      action: e.action,
      subject: e.subject,
      details: JSON.parse(e.details),
    }));
  const riskOf = async (key: string, sku: string) =>
    (await h.request({ method: 'GET', url: '/api/v1/external/products', key })).json().products.find((p: { sku: string }) => p.sku === sku)
      .risk_level;

  before(async () => {
    h = await buildHarness(teardown);
    acme = await h.tenant('acme', ['incidents:write', 'products:read']);
    await h.products.addProduct('acme', 'RTR-2', { name: 'Router' });
    await h.products.addProduct('acme', 'CAM-1', { name: 'Camera' });
    svc = caseServices(h);
  });

  it('opens a case with the defaults: aware now, the matched product, the first line as title, same number', async () => {
    const n = await signal({ description: '\n  Exploited RCE in httpd\nstack trace…', sku: 'RTR-2' });
    h.clock.advance(5 * 60_000);
    const opened = await svc.cases.openCase('acme', { signalNumber: n, notifiable: true, note: 'VAULT: call the CERT' });
    const now = h.clock.now();
    assert.deepEqual(opened, {
      id: opened.id,
      incident_number: n,
      title: 'Exploited RCE in httpd',
      product_sku: 'RTR-2',
      notifiable: true,
      status: 'open',
      aware_at: now.toISOString(),
      early_warning_deadline: new Date(now.getTime() + 24 * H).toISOString(),
      full_notification_deadline: new Date(now.getTime() + 72 * H).toISOString(),
      early_warning_sent_at: null,
      notification_sent_at: null,
      created_at: now.toISOString(),
      closed_at: null,
      kind: 'vulnerability',
      notifiable_reason: null,
      fix_available_at: null,
      stages: [
        { stage: 'early_warning', seq: 0, due: new Date(now.getTime() + 24 * H).toISOString(), filed_at: null, state: 'pending' },
        { stage: 'notification', seq: 0, due: new Date(now.getTime() + 72 * H).toISOString(), filed_at: null, state: 'pending' },
        { stage: 'final', seq: 0, due: null, filed_at: null, state: 'waiting' },
      ],
    });
    const row = await h.database.db.selectFrom('cases').selectAll().where('id', '=', opened.id).executeTakeFirstOrThrow();
    assert.equal(row.notes, 'VAULT: call the CERT', 'the confidential note is stored');
    const sig = await h.database.db
      .selectFrom('signals')
      .select('status')
      .where('org_id', '=', acme.orgId)
      .where('incident_number', '=', n)
      .executeTakeFirstOrThrow();
    assert.equal(sig.status, 'CASE_OPENED');
    const last = (await registryActions(acme.orgId)).at(-1)!;
    assert.deepEqual(last, {
      action: 'case.opened',
      subject: `case ${n}`,
      details: {
        aware_at: now.toISOString(),
        incident_number: n,
        kind: 'vulnerability',
        notifiable: true,
        notifiable_reason: null,
        product_sku: 'RTR-2',
      },
    });
    assert.ok(!JSON.stringify(last).includes('VAULT'), 'the note never enters the registry');
  });

  it('takes --aware-at, --product and --title; deadlines count from awareness', async () => {
    const n = await signal({ title: 'Signal title', sku: 'RTR-2' });
    const awareAt = new Date(h.clock.now().getTime() - 30 * H);
    const opened = await svc.cases.openCase('acme', { signalNumber: n, awareAt, productSku: 'CAM-1', title: 'Chosen title' });
    assert.equal(opened.product_sku, 'CAM-1');
    assert.equal(opened.title, 'Chosen title');
    assert.equal(opened.notifiable, false);
    assert.equal(opened.aware_at, awareAt.toISOString());
    assert.equal(opened.early_warning_deadline, new Date(awareAt.getTime() + 24 * H).toISOString());
    assert.equal(opened.full_notification_deadline, new Date(awareAt.getTime() + 72 * H).toISOString());
    const untitled = await svc.cases.openCase('acme', { signalNumber: await signal({ title: 'From the signal' }) });
    assert.equal(untitled.title, 'From the signal');
    assert.equal(untitled.product_sku, null, 'an unattributed signal gives a case without product');
  });

  it('refuses a second case on a signal, also when two race', async () => {
    const n = await signal({});
    await svc.cases.openCase('acme', { signalNumber: n });
    await rejects(svc.cases.openCase('acme', { signalNumber: n }), 'conflict', /already has a case/);
    const m = await signal({});
    const results = await Promise.allSettled([
      svc.cases.openCase('acme', { signalNumber: m }),
      svc.cases.openCase('acme', { signalNumber: m }),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const failure = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal((failure.reason as AppError).code, 'conflict');
  });

  it('rejects an unknown signal, an unknown product and an awareness time in the future', async () => {
    await rejects(svc.cases.openCase('acme', { signalNumber: 9999 }), 'not_found');
    const n = await signal({});
    await rejects(svc.cases.openCase('acme', { signalNumber: n, productSku: 'NOPE' }), 'product_not_found');
    await rejects(
      svc.cases.openCase('acme', { signalNumber: n, awareAt: new Date(h.clock.now().getTime() + 60_000) }),
      'validation_failed',
      /future/,
    );
    await rejects(svc.cases.openCase('nope', { signalNumber: n }), 'not_found');
  });

  it("never reaches another organisation's signals, products or cases", async () => {
    const _other = await h.tenant('other', ['incidents:write']);
    await h.products.addProduct('other', 'OTHER-1', { name: 'Theirs' });
    const n = await signal({});
    await rejects(svc.cases.openCase('other', { signalNumber: n }), 'not_found');
    await rejects(svc.cases.openCase('acme', { signalNumber: n, productSku: 'OTHER-1' }), 'product_not_found');
    await rejects(svc.cases.recordEarlyWarning('other', 1), 'not_found');
    assert.deepEqual(await svc.cases.listCases('other'), []);
  });

  it('records the early warning and the notification once each, never before awareness or in the future', async () => {
    const n = await signal({});
    const awareAt = new Date(h.clock.now().getTime() - 30 * H);
    await svc.cases.openCase('acme', { signalNumber: n, notifiable: true, awareAt });
    await rejects(svc.cases.recordEarlyWarning('acme', n, new Date(awareAt.getTime() - 1)), 'validation_failed', /before/);
    await rejects(svc.cases.recordEarlyWarning('acme', n, new Date(h.clock.now().getTime() + 1)), 'validation_failed', /future/);
    const late = new Date(awareAt.getTime() + 25 * H);
    const warned = await svc.cases.recordEarlyWarning('acme', n, late);
    assert.equal(warned.early_warning_sent_at, late.toISOString());
    await rejects(svc.cases.recordEarlyWarning('acme', n), 'conflict', /already recorded/);
    const notified = await svc.cases.recordNotification('acme', n);
    assert.equal(notified.notification_sent_at, h.clock.now().toISOString(), '--at defaults to now');
    const actions = (await registryActions(acme.orgId)).slice(-2);
    assert.deepEqual(actions[0], {
      action: 'case.early_warning_recorded',
      subject: `case ${n}`,
      details: {
        deadline: new Date(awareAt.getTime() + 24 * H).toISOString(),
        incident_number: n,
        on_time: false,
        sent_at: late.toISOString(),
        without_content: true,
        note: 'recorded without report content',
      },
    });
    assert.equal(actions[1]!.action, 'case.notification_recorded');
    assert.equal(actions[1]!.details.on_time, true);
  });

  it('closes a case once; a closed case takes no more recordings', async () => {
    const n = await signal({});
    await svc.cases.openCase('acme', { signalNumber: n, notifiable: true });
    await rejects(
      svc.cases.closeCase('acme', n),
      'conflict',
      /cannot close: not yet filed: early warning \(pending, due .*\); notification \(pending/,
    );
    await svc.cases.recordEarlyWarning('acme', n);
    await svc.cases.recordNotification('acme', n);
    const closed = await svc.cases.closeCase('acme', n);
    assert.equal(closed.status, 'closed');
    assert.equal(closed.closed_at, h.clock.now().toISOString());
    await rejects(svc.cases.closeCase('acme', n), 'conflict', /already closed/);
    await rejects(svc.cases.recordEarlyWarning('acme', n), 'conflict', /closed/);
    assert.equal((await registryActions(acme.orgId)).at(-1)!.action, 'case.closed');
    const listed = (await svc.cases.listCases('acme')).find((c) => c.incident_number === n)!;
    assert.equal(listed.status, 'closed');
    assert.ok(!('notes' in listed));
  });

  it("drives the products' risk_level: open case → medium, notifiable → high, closed → back to low", async () => {
    const lab = await h.tenant('lab', ['incidents:write', 'products:read']);
    await h.products.addProduct('lab', 'LAB-1', { name: 'Lab device' });
    const post = async () => (await postIncident(h, lab.key, { description: 'x', sku: 'LAB-1' })).json().incident_number as number;
    const first = await post();
    assert.equal(await riskOf(lab.key, 'LAB-1'), 'low', 'a signal alone changes nothing');
    await svc.cases.openCase('lab', { signalNumber: first });
    assert.equal(await riskOf(lab.key, 'LAB-1'), 'medium');
    const second = await post();
    await svc.cases.openCase('lab', { signalNumber: second, notifiable: true });
    assert.equal(await riskOf(lab.key, 'LAB-1'), 'high');
    await svc.cases.recordEarlyWarning('lab', second);
    await svc.cases.recordNotification('lab', second);
    await svc.cases.closeCase('lab', second);
    assert.equal(await riskOf(lab.key, 'LAB-1'), 'medium');
    await svc.cases.closeCase('lab', first);
    assert.equal(await riskOf(lab.key, 'LAB-1'), 'low');
  });
});
