// The Article 14 stages of a case, their due times and states: pure functions of the case's
// facts and the instant of evaluation. No clock and no database here, so every rule is tested
// at exact instants (month ends, leap years, the due instant itself).

import type { CaseKind, StageName } from '../db/schema.js';

export type { CaseKind, StageName };
export const CASE_KINDS: readonly CaseKind[] = ['vulnerability', 'incident'];

export const STAGE_NAMES: readonly StageName[] = ['early_warning', 'notification', 'intermediate', 'final'];

/** pending: due later (or now); met: filed by the due time; late: filed after it; overdue: not filed, due passed; waiting: no due yet. */
export type StageState = 'pending' | 'met' | 'late' | 'overdue' | 'waiting';

const DAY_MS = 86_400_000;
/** 14(2)(c): the final report of a vulnerability, 14 days after a corrective measure is available. */
export const FINAL_REPORT_DAYS_AFTER_FIX = 14;

/**
 * One calendar month later, in UTC: the same day of the next month at the same time of day, or
 * the last day of that month when it has no such day (31 January → 28 February, or 29 in a leap
 * year; 31 March → 30 April). Clamping keeps the due date inside the next month: rolling over
 * (31 January → 3 March) would give more than a month, which the regulation does not.
 */
export function addCalendarMonthUtc(date: Date): Date {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(date.getUTCDate(), lastDay);
  return new Date(Date.UTC(year, month, day, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()));
}

/** Days as exact multiples of 24 h: in UTC there is no daylight-saving change to skip or repeat. */
export function addDaysUtc(date: Date, days: number): Date {
  return new Date(date.getTime() + days * DAY_MS);
}

/**
 * The final report's due time, or null while there is none: a vulnerability waits for its
 * corrective measure; an incident is due a month after the notification was filed, or, until
 * then, a month after the notification's due time.
 */
export function finalReportDue(facts: {
  kind: CaseKind;
  fix_available_at: string | null;
  notification_due: string;
  notification_filed_at: string | null;
}): Date | null {
  if (facts.kind === 'vulnerability') {
    return facts.fix_available_at === null ? null : addDaysUtc(new Date(facts.fix_available_at), FINAL_REPORT_DAYS_AFTER_FIX);
  }
  return addCalendarMonthUtc(new Date(facts.notification_filed_at ?? facts.notification_due));
}

/** Filing exactly at the due instant meets it; a due time that is exactly now is still pending. */
export function stageState(due: string | null, filedAt: string | null, now: Date): StageState {
  if (due === null) return filedAt === null ? 'waiting' : 'met';
  const dueMs = Date.parse(due);
  if (filedAt !== null) return Date.parse(filedAt) <= dueMs ? 'met' : 'late';
  return now.getTime() > dueMs ? 'overdue' : 'pending';
}

export interface StageFacts {
  kind: CaseKind;
  notifiable: boolean;
  early_warning_deadline: string;
  full_notification_deadline: string;
  early_warning_sent_at: string | null;
  notification_sent_at: string | null;
  fix_available_at: string | null;
  final_filed_at: string | null;
  /** The CSIRT's requests for intermediate reports, in the order they came. */
  intermediates: ReadonlyArray<{ seq: number; due: string; filed_at: string | null }>;
}

export interface StageStatus {
  stage: StageName;
  /** 1, 2, … for intermediate reports; 0 for the other stages. */
  seq: number;
  due: string | null;
  filed_at: string | null;
  state: StageState;
}

/** Every stage of a notifiable case with its due time and state; none for a case that is not notifiable. */
export function caseStages(facts: StageFacts, now: Date): StageStatus[] {
  if (!facts.notifiable) return [];
  const stage = (name: StageName, seq: number, due: string | null, filedAt: string | null): StageStatus => ({
    stage: name,
    seq,
    due,
    filed_at: filedAt,
    state: stageState(due, filedAt, now),
  });
  const finalDue = finalReportDue({
    kind: facts.kind,
    fix_available_at: facts.fix_available_at,
    notification_due: facts.full_notification_deadline,
    notification_filed_at: facts.notification_sent_at,
  });
  return [
    stage('early_warning', 0, facts.early_warning_deadline, facts.early_warning_sent_at),
    stage('notification', 0, facts.full_notification_deadline, facts.notification_sent_at),
    ...[...facts.intermediates].sort((a, b) => a.seq - b.seq).map((i) => stage('intermediate', i.seq, i.due, i.filed_at)),
    stage('final', 0, finalDue?.toISOString() ?? null, facts.final_filed_at),
  ];
}

/**
 * What keeps a case from closing (art14.md: "only when every due stage is filed"): every stage
 * that has a due time and no filing. A vulnerability's final report waiting for its corrective
 * measure has no due time yet, so it does not block; once the fix is recorded, it does.
 */
export function closeBlockers(stages: readonly StageStatus[]): StageStatus[] {
  return stages.filter((s) => s.filed_at === null && s.due !== null);
}

/** Passed due times that were not met (nothing filed, or filed late): rule 2 of the score. */
export function missedStages(stages: readonly StageStatus[]): StageStatus[] {
  return stages.filter((s) => s.state === 'overdue' || s.state === 'late');
}

export function stageLabel(stage: StageName, seq = 0): string {
  switch (stage) {
    case 'early_warning':
      return 'early warning';
    case 'notification':
      return 'notification';
    case 'intermediate':
      return seq > 0 ? `intermediate report ${seq}` : 'intermediate report';
    default:
      return 'final report';
  }
}
