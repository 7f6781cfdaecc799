import { createHash } from 'node:crypto';
import type { OsvAffected, OsvEvent, OsvRange } from '../match/osv-range.js';
import { FeedRecordError } from './json-text.js';

// One OSV record (schema 1.x) as the platform keeps it: what matching, findings, `vuln show` and
// the VEX documents read, checked field by field. A record whose fields that matching uses are
// malformed is refused with the field named; everything else in it is kept as it came.

/** A stored `affected[]` entry: matching's shape (match/osv-range.ts), ranges and versions always present. */
export interface OsvAffectedEntry extends OsvAffected {
  ranges: Array<OsvRange & { repo?: string }>;
  versions: string[];
}

export interface OsvSeverity {
  type: string;
  score: string;
}

export interface OsvRecord {
  id: string;
  aliases: string[];
  summary: string | null;
  details: string | null;
  severity: OsvSeverity[];
  affected: OsvAffectedEntry[];
  references: Array<{ type: string; url: string }>;
  published: string | null;
  modified: string | null;
  withdrawn: string | null;
  /** SHA-256 of the whole record's canonical JSON: a record that did not change is skipped. */
  digest: string;
  /** The alias group it belongs to: its one CVE, else its own id (vulnerabilities.md, Findings). */
  vulnKey: string;
}

const CVE = /^CVE-\d{4}-\d{4,}$/;
const EVENT_KINDS = new Set(['introduced', 'fixed', 'last_affected', 'limit']);

/** The one CVE among a record's id and aliases, or null when it names none or several. */
export function soleCve(ids: readonly string[]): string | null {
  const cves = [...new Set(ids.filter((id) => CVE.test(id)))];
  return cves.length === 1 ? cves[0]! : null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const fail = (field: string, why: string): never => {
  throw new FeedRecordError(`${field} ${why}`);
};

function text(record: Record<string, unknown>, key: string): string | null {
  const value = record[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') fail(key, 'must be a string');
  return value as string;
}

function strings(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(field, 'must be an array');
  return value.map((item, i) => (typeof item === 'string' ? item : fail(`${field}[${i}]`, 'must be a string')));
}

function affectedEntry(value: unknown, at: string): OsvAffectedEntry {
  if (!isObject(value)) return fail(at, 'must be an object');
  const entry: OsvAffectedEntry = { ranges: [], versions: strings(value.versions, `${at}.versions`) };
  if (value.package !== undefined) {
    const pkg = value.package;
    if (!isObject(pkg)) return fail(`${at}.package`, 'must be an object');
    if (typeof pkg.ecosystem !== 'string' || pkg.ecosystem === '') fail(`${at}.package.ecosystem`, 'must be a non-empty string');
    if (typeof pkg.name !== 'string' || pkg.name === '') fail(`${at}.package.name`, 'must be a non-empty string');
    if (pkg.purl !== undefined && typeof pkg.purl !== 'string') fail(`${at}.package.purl`, 'must be a string');
    entry.package = { ecosystem: pkg.ecosystem as string, name: pkg.name as string, ...(pkg.purl ? { purl: pkg.purl as string } : {}) };
  }
  if (value.ranges !== undefined) {
    if (!Array.isArray(value.ranges)) return fail(`${at}.ranges`, 'must be an array');
    for (const [r, range] of value.ranges.entries()) {
      const where = `${at}.ranges[${r}]`;
      if (!isObject(range)) fail(where, 'must be an object');
      if (typeof range.type !== 'string') fail(`${where}.type`, 'must be a string');
      if (!Array.isArray(range.events) || range.events.length === 0) fail(`${where}.events`, 'must be a non-empty array');
      const events = (range.events as unknown[]).map((event, e) => {
        if (!isObject(event)) return fail(`${where}.events[${e}]`, 'must be an object');
        const keys = Object.keys(event);
        if (keys.length !== 1 || !EVENT_KINDS.has(keys[0]!)) {
          return fail(`${where}.events[${e}]`, 'must have exactly one of introduced, fixed, last_affected, limit');
        }
        const version = event[keys[0]!];
        if (typeof version !== 'string' || version === '') return fail(`${where}.events[${e}].${keys[0]}`, 'must be a non-empty string');
        return { [keys[0]!]: version } as OsvEvent;
      });
      entry.ranges.push({ type: range.type as string, events, ...(typeof range.repo === 'string' ? { repo: range.repo } : {}) });
    }
  }
  return entry;
}

/**
 * A parsed JSON value → the record as kept, or a FeedRecordError naming the malformed field.
 * `canonical` is its canonical JSON (json-text.ts checkedCanonical), which its digest is of.
 */
export function readOsvRecord(value: unknown, canonical: string): OsvRecord {
  if (!isObject(value)) return fail('the record', 'must be a JSON object');
  const id = value.id;
  // The schema's id is a database prefix and an identifier; no more is assumed, so a prefix a
  // later schema adds is read like the others.
  if (typeof id !== 'string' || id.length === 0 || id.length > 200 || /\s/.test(id) || [...id].some((c) => c.charCodeAt(0) < 0x20)) {
    return fail('id', 'must be a non-empty string of at most 200 characters without spaces');
  }
  const aliases = strings(value.aliases, 'aliases').filter((alias) => alias !== id);
  const severity = (
    Array.isArray(value.severity) ? value.severity : value.severity === undefined ? [] : fail('severity', 'must be an array')
  )
    .filter(isObject)
    .filter((s) => typeof s.type === 'string' && typeof s.score === 'string')
    .map((s) => ({ type: s.type as string, score: s.score as string }));
  const affected =
    value.affected === undefined ? [] : Array.isArray(value.affected) ? value.affected : fail('affected', 'must be an array');
  const references = (Array.isArray(value.references) ? value.references : [])
    .filter(isObject)
    .filter((r) => typeof r.url === 'string')
    .map((r) => ({ type: typeof r.type === 'string' ? r.type : 'WEB', url: r.url as string }));
  return {
    id,
    aliases: [...new Set(aliases)],
    summary: text(value, 'summary'),
    details: text(value, 'details'),
    severity,
    affected: affected.map((entry, i) => affectedEntry(entry, `affected[${i}]`)),
    references,
    published: text(value, 'published'),
    modified: text(value, 'modified'),
    withdrawn: text(value, 'withdrawn'),
    digest: createHash('sha256').update(canonical).digest('hex'),
    vulnKey: soleCve([id, ...aliases]) ?? id,
  };
}
