// Pure rules of the clock events: which threshold of a stage's due time has been reached.

import type { DueStage } from '../cases/due-stages.js';

const HOUR_MS = 3_600_000;

export type Threshold = '6h' | '1h' | 'overdue';

/**
 * The tightest threshold reached at `now`: overdue once the due time passed, else 1 h, else 6 h
 * before it; null earlier. A scheduler that was down across the 6 h mark and comes back within
 * the last hour fires only the 1 h warning: a "due in 6 h" that late would mislead.
 */
export function reachedThreshold(due: Date, now: Date): Threshold | null {
  const left = due.getTime() - now.getTime();
  if (left <= 0) return 'overdue';
  if (left <= HOUR_MS) return '1h';
  if (left <= 6 * HOUR_MS) return '6h';
  return null;
}

/** How far ahead of `now` a stage must be due for any threshold to be reached. */
export const LOOKAHEAD_MS = 6 * HOUR_MS;

/** Once per (case, stage, threshold), ever: the unique key of the event in the outbox (intermediate reports by number). */
export function stageDedupKey(stage: Pick<DueStage, 'case_id' | 'stage' | 'seq'>, threshold: Threshold): string {
  const name = stage.seq > 0 ? `${stage.stage}.${stage.seq}` : stage.stage;
  return `case.stage:${stage.case_id}:${name}:${threshold}`;
}

/** What a stage event says: incident number, stage and due time (and which intermediate report). */
export function stageEventData(stage: DueStage): Record<string, unknown> {
  const data: Record<string, unknown> = { incident_number: stage.incident_number, stage: stage.stage, due: stage.due };
  if (stage.seq > 0) data.seq = stage.seq;
  return data;
}

/** Keys expiring within this window announce it once (webhooks.md). */
export const KEY_EXPIRY_NOTICE_MS = 7 * 24 * HOUR_MS;
