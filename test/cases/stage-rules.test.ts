import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caseDeadlines } from '../../src/cases/case-rules.js';
import {
  addCalendarMonthUtc,
  caseStages,
  closeBlockers,
  finalReportDue,
  missedStages,
  stageState,
  type StageFacts,
} from '../../src/cases/stage-rules.js';

const at = (s: string) => new Date(s);
const month = (s: string) => addCalendarMonthUtc(at(s)).toISOString();

describe('one calendar month later (UTC)', () => {
  it('keeps the day and the time of day', () => {
    assert.equal(month('2026-03-15T08:30:00.250Z'), '2026-04-15T08:30:00.250Z');
    assert.equal(month('2026-12-20T23:59:59.999Z'), '2027-01-20T23:59:59.999Z');
  });

  it('clamps to the end of a shorter month: 31 January → 28 February, 29 in a leap year', () => {
    assert.equal(month('2027-01-31T10:00:00.000Z'), '2027-02-28T10:00:00.000Z');
    assert.equal(month('2028-01-31T10:00:00.000Z'), '2028-02-29T10:00:00.000Z');
    assert.equal(month('2028-01-29T10:00:00.000Z'), '2028-02-29T10:00:00.000Z');
    assert.equal(month('2027-01-29T10:00:00.000Z'), '2027-02-28T10:00:00.000Z');
    assert.equal(month('2026-03-31T00:00:00.000Z'), '2026-04-30T00:00:00.000Z');
    assert.equal(month('2026-08-31T12:00:00.000Z'), '2026-09-30T12:00:00.000Z');
  });

  it('is taken in UTC, so a local date near midnight counts by its UTC day', () => {
    // 1 February 00:30 in Berlin is 31 January 23:30 UTC: the month ends on 28 February 23:30 UTC.
    assert.equal(month('2027-02-01T00:30:00+01:00'), '2027-02-28T23:30:00.000Z');
  });
});

describe('due times across daylight-saving changes (Europe/Berlin input, UTC arithmetic)', () => {
  const berlin = (d: Date) =>
    new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', dateStyle: 'short', timeStyle: 'short' }).format(d);

  it('the early warning is 24 real hours after awareness, even when the clocks go forward that night', () => {
    // Saturday 28 March 2026, 10:00 CET (+01:00); summer time starts on 29 March at 02:00.
    const aware = at('2026-03-28T10:00:00+01:00');
    const { earlyWarning, fullNotification } = caseDeadlines(aware);
    assert.equal(earlyWarning.toISOString(), '2026-03-29T09:00:00.000Z');
    assert.equal(berlin(earlyWarning), '29/03/2026, 11:00', 'one wall-clock hour later in Berlin: an hour was skipped');
    assert.equal(fullNotification.toISOString(), '2026-03-31T09:00:00.000Z');
  });

  it('and when they go back (25 October 2026, 03:00 CEST → 02:00 CET)', () => {
    const aware = at('2026-10-24T10:00:00+02:00');
    const { earlyWarning } = caseDeadlines(aware);
    assert.equal(earlyWarning.toISOString(), '2026-10-25T08:00:00.000Z');
    assert.equal(berlin(earlyWarning), '25/10/2026, 09:00');
  });

  it('the incident final report is a calendar month of UTC, whatever the local offset did', () => {
    // Notification filed 31 March 2026 01:30 CEST = 30 March 23:30 UTC → due 30 April 23:30 UTC.
    const due = finalReportDue({
      kind: 'incident',
      fix_available_at: null,
      notification_due: '2026-04-01T00:00:00.000Z',
      notification_filed_at: at('2026-03-31T01:30:00+02:00').toISOString(),
    });
    assert.equal(due?.toISOString(), '2026-04-30T23:30:00.000Z');
  });
});

describe('stage states at the exact instant', () => {
  const due = '2026-11-23T08:00:00.000Z';
  it('filed exactly at the due time is met; one millisecond later is late', () => {
    assert.equal(stageState(due, '2026-11-23T08:00:00.000Z', at('2026-12-01T00:00:00Z')), 'met');
    assert.equal(stageState(due, '2026-11-23T08:00:00.001Z', at('2026-12-01T00:00:00Z')), 'late');
  });

  it('not filed: pending up to and at the due instant, overdue one millisecond after', () => {
    assert.equal(stageState(due, null, at('2026-11-23T07:59:59.999Z')), 'pending');
    assert.equal(stageState(due, null, at('2026-11-23T08:00:00.000Z')), 'pending');
    assert.equal(stageState(due, null, at('2026-11-23T08:00:00.001Z')), 'overdue');
  });

  it('no due time yet: waiting', () => {
    assert.equal(stageState(null, null, at('2030-01-01T00:00:00Z')), 'waiting');
  });
});

describe('case stages', () => {
  const base: StageFacts = {
    kind: 'vulnerability',
    notifiable: true,
    early_warning_deadline: '2026-11-21T08:00:00.000Z',
    full_notification_deadline: '2026-11-23T08:00:00.000Z',
    early_warning_sent_at: null,
    notification_sent_at: null,
    fix_available_at: null,
    final_filed_at: null,
    intermediates: [],
  };

  it('a vulnerability has no final-report due time until a fix is recorded, then 14 days after it', () => {
    const now = at('2026-11-22T00:00:00Z');
    const waiting = caseStages(base, now);
    assert.deepEqual(
      waiting.map((s) => [s.stage, s.state]),
      [
        ['early_warning', 'overdue'],
        ['notification', 'pending'],
        ['final', 'waiting'],
      ],
    );
    assert.equal(waiting[2]!.due, null);
    const fixed = caseStages({ ...base, fix_available_at: '2027-01-31T12:00:00.000Z' }, now);
    assert.equal(fixed[2]!.due, '2027-02-14T12:00:00.000Z');
    assert.equal(fixed[2]!.state, 'pending');
  });

  it('an incident final report is due a month after the notification due time, then after its filing', () => {
    const incident = { ...base, kind: 'incident' as const, full_notification_deadline: '2027-01-31T09:00:00.000Z' };
    assert.equal(caseStages(incident, at('2027-01-01T00:00:00Z'))[2]!.due, '2027-02-28T09:00:00.000Z');
    const filed = caseStages({ ...incident, notification_sent_at: '2027-01-30T15:00:00.000Z' }, at('2027-01-31T00:00:00Z'));
    assert.equal(filed[1]!.state, 'met');
    assert.equal(filed[2]!.due, '2027-02-28T15:00:00.000Z', 'one month after 30 January is 28 February (clamped)');
  });

  it('intermediate reports come in the order the CSIRT asked, each with its own state', () => {
    const stages = caseStages(
      {
        ...base,
        intermediates: [
          { seq: 2, due: '2026-12-10T00:00:00.000Z', filed_at: null },
          { seq: 1, due: '2026-11-30T00:00:00.000Z', filed_at: '2026-12-01T00:00:00.000Z' },
        ],
      },
      at('2026-12-05T00:00:00Z'),
    );
    assert.deepEqual(
      stages.filter((s) => s.stage === 'intermediate').map((s) => [s.seq, s.state]),
      [
        [1, 'late'],
        [2, 'pending'],
      ],
    );
  });

  it('a case that is not notifiable has no stages and nothing blocks its closing', () => {
    assert.deepEqual(caseStages({ ...base, notifiable: false }, at('2030-01-01T00:00:00Z')), []);
  });

  it('closing is blocked by every unfiled stage with a due time; a final report waiting for a fix has none', () => {
    const now = at('2026-12-30T00:00:00Z');
    assert.deepEqual(
      closeBlockers(caseStages(base, now)).map((s) => s.stage),
      ['early_warning', 'notification'],
    );
    const filedAll = { ...base, early_warning_sent_at: '2026-11-21T07:00:00.000Z', notification_sent_at: '2026-11-23T09:00:00.000Z' };
    assert.deepEqual(closeBlockers(caseStages(filedAll, now)), []);
    const fixed = {
      ...filedAll,
      fix_available_at: '2026-12-01T00:00:00.000Z',
      intermediates: [{ seq: 1, due: '2027-01-05T00:00:00.000Z', filed_at: null }],
    };
    assert.deepEqual(
      closeBlockers(caseStages(fixed, now)).map((s) => [s.stage, s.state]),
      [
        ['intermediate', 'pending'],
        ['final', 'overdue'],
      ],
    );
    const incident = { ...filedAll, kind: 'incident' as const };
    assert.deepEqual(
      closeBlockers(caseStages(incident, now)).map((s) => s.stage),
      ['final'],
      'an incident owes its final report from the start',
    );
    const done = { ...filedAll, fix_available_at: '2026-12-01T00:00:00.000Z', final_filed_at: '2026-12-10T00:00:00.000Z' };
    assert.deepEqual(closeBlockers(caseStages(done, now)), []);
    assert.deepEqual(
      missedStages(caseStages(done, now)).map((s) => [s.stage, s.state]),
      [['notification', 'late']],
    );
  });
});
