// Formatting helpers handed to every template as `it.h`, and the templates' escaping.

import { type StageName, type StageStatus, stageLabel } from '../cases/stage-rules.js';
import { describeEntry } from './registry-details.js';

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/**
 * Unicode direction controls: embeddings, overrides and isolates (the "Trojan Source" set). One
 * in a product name or a signal title turns the rest of its line around on the page.
 */
const DIRECTION_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * How every `<%= %>` of the console's templates is written: HTML-escaped as eta does it, and
 * each direction control shown as a visible "[U+202E]" instead of acting on the page. The data
 * is left as stored (the API answers it as it came); only what the console shows changes.
 */
export function escapeForPage(value: unknown): string {
  return String(value)
    .replace(/[&<>"']/g, (c) => HTML[c]!)
    .replace(DIRECTION_CONTROLS, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase()}]`);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "2026-11-22 10:00 UTC": the console speaks UTC, like the API. */
export function time(value: string | null): string {
  if (!value) return '—';
  const d = new Date(value);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

/** Hours and minutes (the CRA clocks run 24 h and 72 h); days only past 100 hours. */
function span(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  if (hours >= 100) return `${Math.floor(hours / 24)} d ${hours % 24} h`;
  if (hours > 0) return `${hours} h ${pad(minutes % 60)} min`;
  return `${minutes} min`;
}

/** Time left until `deadline` at `now`, or how long it is overdue. */
export function clock(deadline: string, now: Date): { text: string; overdue: boolean } {
  const ms = Date.parse(deadline) - now.getTime();
  return ms >= 0 ? { text: `${span(ms)} left`, overdue: false } : { text: `overdue by ${span(-ms)}`, overdue: true };
}

/** A stage of Article 14 still to be filed, with what the console shows of it: name, due time and its clock. */
export interface StageClock {
  label: string;
  due: string;
  text: string;
  overdue: boolean;
}

/**
 * The running clocks of a case's stages (caseStages, stage-rules.ts): those still to be filed by
 * a due time (pending or overdue), the early warning and the notification apart from the later
 * reports (each intermediate report the CSIRT asked for, the final report once it has a due
 * time). `waitingForFix`: a vulnerability's final report has no clock yet (it starts when the
 * corrective measure is recorded).
 */
export function stageClocks(stages: readonly StageStatus[], now: Date) {
  const running = stages.filter((s): s is StageStatus & { due: string } => s.state === 'pending' || s.state === 'overdue');
  const clockOf = (s: StageStatus & { due: string }): StageClock => ({
    label: stageLabel(s.stage, s.seq),
    due: s.due,
    ...clock(s.due, now),
  });
  const of = (stage: StageName) => {
    const found = running.find((s) => s.stage === stage);
    return found ? clockOf(found) : null;
  };
  return {
    earlyWarning: of('early_warning'),
    notification: of('notification'),
    later: {
      clocks: running.filter((s) => s.stage === 'intermediate' || s.stage === 'final').map(clockOf),
      waitingForFix: stages.some((s) => s.stage === 'final' && s.state === 'waiting'),
    },
  };
}

/** A size in bytes as people read it: "812 B", "41.3 KiB", "2.1 MiB". */
export function bytes(value: number): string {
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / 1024 / 1024).toFixed(1)} MiB`;
}

export const helpers = { time, clock, entry: describeEntry, bytes };
