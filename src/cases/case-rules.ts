// Pure case rules shared by intake (mode `case`), `cra-admin case open` and the console.
import { randomUUID } from 'node:crypto';
import type { CaseRow, SignalRow } from '../db/schema.js';
import { iso } from '../shared/time.js';

/**
 * Where a signal stands in triage. `INCOMING` is the only status the API spec names; a signal
 * leaves it when a case is opened for it (`CASE_OPENED`).
 */
export type SignalStatus = 'INCOMING' | 'CASE_OPENED';
export const SIGNAL_INCOMING: SignalStatus = 'INCOMING';
export const SIGNAL_CASE_OPENED: SignalStatus = 'CASE_OPENED';

const HOUR_MS = 3_600_000;
/** CRA Art. 14: early warning within 24 h, notification within 72 h of becoming aware. */
export const EARLY_WARNING_HOURS = 24;
export const FULL_NOTIFICATION_HOURS = 72;
export const TITLE_MAX = 120;

export function caseDeadlines(awareAt: Date): { earlyWarning: Date; fullNotification: Date } {
  return {
    earlyWarning: new Date(awareAt.getTime() + EARLY_WARNING_HOURS * HOUR_MS),
    fullNotification: new Date(awareAt.getTime() + FULL_NOTIFICATION_HOURS * HOUR_MS),
  };
}

/** The given title, else the description's first non-blank line, cut to 120 characters. */
export function caseTitle(title: string | null | undefined, description: string): string {
  const chosen = title?.trim() || description.split(/\r\n|\r|\n/).map((line) => line.trim()).find(Boolean) || 'untitled';
  // Array.from counts code points, so a cut never splits a surrogate pair.
  return Array.from(chosen).slice(0, TITLE_MAX).join('');
}

export interface NewCaseFields {
  productId: string | null;
  title?: string | null;
  notifiable: boolean;
  awareAt: Date;
  note?: string | null;
  now: string;
}

/** The row for a new open case on `signal`: same incident number, deadlines from awareness. */
export function newCaseRow(signal: SignalRow, fields: NewCaseFields): CaseRow {
  const deadlines = caseDeadlines(fields.awareAt);
  return {
    id: randomUUID(),
    org_id: signal.org_id,
    signal_id: signal.id,
    incident_number: signal.incident_number,
    product_id: fields.productId,
    title: caseTitle(fields.title ?? signal.title, signal.description),
    notifiable: fields.notifiable ? 1 : 0,
    aware_at: iso(fields.awareAt),
    early_warning_deadline: iso(deadlines.earlyWarning),
    full_notification_deadline: iso(deadlines.fullNotification),
    early_warning_sent_at: null,
    notification_sent_at: null,
    status: 'open',
    notes: fields.note?.trim() || null,
    created_at: fields.now,
    closed_at: null,
  };
}
