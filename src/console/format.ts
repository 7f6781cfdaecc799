// Formatting helpers handed to every template as `it.h`.

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

export const helpers = { time, clock };
