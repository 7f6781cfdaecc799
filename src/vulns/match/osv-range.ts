import type { VersionOrder } from './orders/order.js';

/** One event of an OSV range; a well-formed event holds exactly one of the four. */
export interface OsvEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}

/** An OSV range: SEMVER and ECOSYSTEM are evaluated, GIT (and unknown types) never are. */
export interface OsvRange {
  type: string;
  events: OsvEvent[];
}

/** The part of an OSV `affected[]` entry that decides which versions are affected. */
export interface OsvAffected {
  package?: { ecosystem: string; name: string; purl?: string };
  ranges?: OsvRange[];
  versions?: string[];
}

/**
 * Whether `version` is affected, by the OSV schema's evaluation: listed in `versions[]` (exact
 * string), or inside a SEMVER or ECOSYSTEM range under the ecosystem's order. A version the order
 * cannot read (or no order at all) matches only through `versions[]`.
 */
export function affects(affected: OsvAffected, version: string, order: VersionOrder | null): boolean {
  if (affected.versions?.includes(version)) return true;
  if (order === null || !order.valid(version)) return false;
  return (affected.ranges ?? []).some((range) => inRange(range, version, order));
}

const FIELDS = ['introduced', 'fixed', 'last_affected', 'limit'] as const;

/** The version an event sits at on the timeline (its first field, for a malformed event with several). */
const versionOf = (event: OsvEvent): string | undefined => event.introduced ?? event.fixed ?? event.last_affected ?? event.limit;

/** introduced "0" sorts before every version, and a limit holding "*" after every version. */
const isBottom = (event: OsvEvent): boolean => event.introduced === '0';
const isTop = (event: OsvEvent): boolean => event.limit?.includes('*') === true;
const place = (event: OsvEvent): number => (isBottom(event) ? -1 : isTop(event) ? 1 : 0);

/** Every version the event names is one the order can read (the special "0" and "*" aside). */
function readable(event: OsvEvent, order: VersionOrder): boolean {
  const values = FIELDS.flatMap((field) => (event[field] === undefined ? [] : [event[field]]));
  return (
    values.length > 0 &&
    values.every(
      (value) => (value === '0' && event.introduced === '0') || (value.includes('*') && event.limit === value) || order.valid(value),
    )
  );
}

function inRange(range: OsvRange, version: string, order: VersionOrder): boolean {
  if (range.type !== 'SEMVER' && range.type !== 'ECOSYSTEM') return false;
  const events = range.events ?? [];
  // an event the order cannot read cannot be placed on the timeline: the range says nothing
  if (!events.every((event) => readable(event, order))) return false;
  // BeforeLimits: with limit events, the version must be below one of them
  const limits = events.filter((event) => event.limit !== undefined);
  if (limits.length > 0 && !limits.some((event) => isTop(event) || order.compare(version, event.limit!) < 0)) return false;

  const sorted = [...events].sort((a, b) => place(a) - place(b) || (place(a) === 0 ? order.compare(versionOf(a)!, versionOf(b)!) : 0));
  let vulnerable = false;
  for (const event of sorted) {
    if (event.introduced !== undefined && (isBottom(event) || order.compare(version, event.introduced) >= 0)) vulnerable = true;
    else if (event.fixed !== undefined && order.compare(version, event.fixed) >= 0) vulnerable = false;
    else if (event.last_affected !== undefined && order.compare(version, event.last_affected) > 0) vulnerable = false;
  }
  return vulnerable;
}
