import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { postIncident } from '../helpers/incidents.js';

// The Article 14 services on the harness clock: exact instants for an incident's final report,
// refusals, tenancy, and the events seam (webhooks) inside the transaction of each change.

const H = 3_600_000;

describe('Article 14 services', () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();
  const rejects = (promise: Promise<unknown>, code: string, message?: RegExp) =>
    assert.rejects(promise, (e: unknown) => e instanceof AppError && e.code === code && (!message || message.test(e.message)));
  const signal = async (body: Record<string, unknown> = {}) =>
    (await postIncident(h, acme.key, { description: 'report', ...body })).json().incident_number as number;

  before(async () => {
    h = await buildHarness(teardown);
    h.clock.current = new Date('2027-01-27T09:00:00.000Z');
    acme = await h.tenant('acme', ['incidents:write']);
    await h.products.addProduct('acme', 'RTR-2', { name: 'Router', firmwareVersion: '1.0', markets: ['EU'] });
    await h.orgs.setDetails('acme', {
      legalName: 'Acme GmbH',
      postalAddress: 'Berlin',
      contactEmail: 'psirt@acme.example',
      memberState: 'AT',
    });
  });

  it("an incident's final report is due a month after the notification's due time, then a month after its filing (31 January → 28 February)", async () => {
    const n = await signal({ sku: 'RTR-2' });
    const awareAt = new Date('2027-01-28T10:00:00.000Z'); // notification due 31 January 10:00 Z
    h.clock.current = new Date('2027-01-28T12:00:00.000Z');
    const opened = await h.cases.openCase('acme', { signalNumber: n, notifiable: true, kind: 'incident', awareAt });
    assert.deepEqual(
      opened.stages.map((s) => [s.stage, s.due]),
      [
        ['early_warning', '2027-01-29T10:00:00.000Z'],
        ['notification', '2027-01-31T10:00:00.000Z'],
        ['final', '2027-02-28T10:00:00.000Z'],
      ],
    );
    const ew = await h.reports.getReport('acme', n, 'early_warning');
    assert.deepEqual(ew.missing, ['suspected_malicious_act'], 'an incident asks whether it was a malicious act');
    assert.deepEqual(ew.fields.markets, ['EU']);
    await h.reports.saveDraft('acme', n, 'early_warning', { suspected_malicious_act: 'unknown' });
    h.clock.current = new Date('2027-01-29T10:00:00.000Z');
    assert.equal(
      (await h.reports.fileReport('acme', n, 'early_warning', { reference: 'EW', filedBy: 'alice' })).state,
      'met',
      'filed at the exact due instant',
    );
    await h.reports.saveDraft('acme', n, 'notification', {
      suspected_malicious_act: 'yes',
      nature: 'ransomware',
      corrective_measures: 'isolated',
      user_measures: 'none needed',
      tlp: 'RED',
    });
    h.clock.current = new Date('2027-01-30T23:30:00.000Z');
    await h.reports.fileReport('acme', n, 'notification', { reference: 'N', filedBy: 'alice' });
    const [kase] = (await h.cases.listCases('acme')).filter((c) => c.incident_number === n);
    assert.equal(kase!.stages.at(-1)!.due, '2027-02-28T23:30:00.000Z', 'a month after 30 January is 28 February (clamped)');
    await rejects(h.cases.closeCase('acme', n), 'conflict', /not yet filed: final report \(pending, due 2027-02-28T23:30:00.000Z\)/);
    h.clock.current = new Date('2027-02-28T23:30:00.001Z');
    assert.equal(
      (await h.cases.listCases('acme')).find((c) => c.incident_number === n)!.stages.at(-1)!.state,
      'overdue',
      'one millisecond after',
    );
    const final = await h.reports.getReport('acme', n, 'final');
    assert.deepEqual(final.missing, ['description', 'severity', 'impact', 'threat_or_root_cause', 'remediation']);
  });

  it('refuses: filing in the future, a report of a case that is not notifiable, an unknown field, another organisation', async () => {
    const n = await signal({ sku: 'RTR-2' });
    await h.cases.openCase('acme', { signalNumber: n, notifiable: true });
    await rejects(
      h.reports.fileReport('acme', n, 'early_warning', { reference: 'X', filedBy: 'a', at: new Date(h.clock.now().getTime() + 1) }),
      'validation_failed',
      /in the future/,
    );
    await rejects(
      h.reports.saveDraft('acme', n, 'early_warning', { nature: 'x', bogus: 'y' }),
      'validation_failed',
      /nature: not a field of the early warning report.*bogus: not a field/,
    );
    await rejects(h.reports.getReport('acme', n, 'intermediate'), 'conflict', /has not asked for an intermediate report/);
    await rejects(h.reports.recordFix('acme', n, new Date(h.clock.now().getTime() + H), undefined), 'validation_failed', /future/);
    const quiet = await signal();
    await rejects(h.cases.openCase('acme', { signalNumber: quiet, notifiable: false }), 'validation_failed', /needs the reason/);
    await h.cases.openCase('acme', { signalNumber: quiet, notifiable: false, notifiableReason: 'not our product' });
    await rejects(h.reports.getReport('acme', quiet, 'early_warning'), 'conflict', /not notifiable/);
    assert.equal((await h.cases.closeCase('acme', quiet)).status, 'closed', 'a case that is not notifiable closes at once');
    await h.tenant('other', ['incidents:write']);
    await rejects(h.reports.getReport('other', n, 'early_warning'), 'not_found');
    await rejects(h.triage.dismissSignal('other', n, 'x'), 'not_found');
    await rejects(h.evidence.exportCase('other', n), 'not_found');
  });
});
