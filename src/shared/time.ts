/** The service's clock; injected so tests can move time without sleeping. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** RFC 3339 UTC with milliseconds, the only timestamp form stored and returned. */
export function iso(date: Date): string {
  return date.toISOString();
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 timestamp (or a plain date, as midnight UTC); null when invalid. */
export function parseTimestamp(value: string): Date | null {
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  if (!RFC3339.test(text)) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "10m", "2h", "1d", "30s" → milliseconds; null when not of that form. */
export function parseDuration(value: string): number | null {
  const match = /^(\d+)(s|m|h|d)$/.exec(value.trim());
  if (!match) return null;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
