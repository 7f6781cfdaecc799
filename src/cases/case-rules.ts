// Pure case rules shared by intake (mode `case`), `cra-admin case open` and the console.
import { randomUUID } from 'node:crypto';
import type { CaseKind, CaseRow, SignalRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import { iso } from '../shared/time.js';
import { SIGNAL_INCOMING, SIGNAL_MERGED } from '../incidents/signal-status.js';

/** A signal that has left INCOMING was triaged once and for all. */
export function assertUntriaged(signal: Pick<SignalRow, 'incident_number' | 'status' | 'merged_into'>): void {
  if (signal.status === SIGNAL_INCOMING) return;
  const outcome = signal.status === SIGNAL_MERGED ? `MERGED into case ${signal.merged_into}` : signal.status;
  throw new AppError('conflict', `signal ${signal.incident_number} was already triaged (${outcome}); a signal is triaged once`);
}

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
  const chosen =
    title?.trim() ||
    description
      .split(/\r\n|\r|\n/)
      .map((line) => line.trim())
      .find(Boolean) ||
    'untitled';
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
  /** Actively exploited vulnerability (default) or severe incident. */
  kind?: CaseKind;
  /** Why a case is not notifiable (ignored for a notifiable one). */
  notifiableReason?: string | null;
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
    kind: fields.kind ?? 'vulnerability',
    notifiable_reason: fields.notifiable ? null : fields.notifiableReason?.trim() || null,
    fix_available_at: null,
    fix_description: null,
    advisory_published_at: null,
    advisory_url: null,
  };
}
