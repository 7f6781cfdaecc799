import { createHash } from 'node:crypto';
import { cvssBaseScore } from '../cvss.js';
import type { NvdConfiguration, NvdNode } from '../match/cpe/configurations.js';
import type { NvdCpeMatch } from '../match/cpe/criterion.js';
import { productsNamed } from '../match/cpe/record-products.js';
import { FeedRecordError } from './json-text.js';

// One NVD CVE record (the CVE API 2.0's `cve` object) as the platform keeps it: its ids, English
// description, the CVSS it is shown with, its configurations as matching reads them (checked
// field by field; firmware.md), and CISA's date when the record carries one. A record whose
// fields that matching uses are malformed is refused with the field named.

/** The CVSS a finding shows: the NVD's primary v4.0 or v3.x, else the first secondary (its source named). */
export interface NvdCvss {
  score: number;
  vector: string;
  source: string;
  primary: boolean;
}

export interface NvdRecord {
  id: string;
  /** SHA-256 of the record's canonical JSON: an unchanged record is skipped. */
  digest: string;
  status: string | null;
  /** The English description. */
  summary: string | null;
  cvss: NvdCvss | null;
  configurations: NvdConfiguration[];
  /** The `vendor:product` keys the criteria name, and whether some criterion names every product. */
  productKeys: string[];
  everyProduct: boolean;
  /** `cisaExploitAdd`: CISA's date when it lists the CVE as exploited (a Reading of firmware.md). */
  cisaExploitAdd: string | null;
  references: Array<{ url: string; source: string | null }>;
  published: string | null;
  modified: string | null;
  /** `vulnStatus: Rejected`: the record is withdrawn (its last modification date), its findings resolve. */
  withdrawn: string | null;
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
const OPERATORS = new Set(['AND', 'OR']);
const BOUNDS = ['versionStartIncluding', 'versionStartExcluding', 'versionEndIncluding', 'versionEndExcluding'] as const;
/** The metrics read, best first: a primary score is taken from the first of these that has one. */
const METRICS = ['cvssMetricV40', 'cvssMetricV31', 'cvssMetricV30'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const fail = (field: string, why: string): never => {
  throw new FeedRecordError(`${field} ${why}`);
};

function text(record: Record<string, unknown>, key: string): string | null {
  const value = record[key];
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : fail(key, 'must be a string');
}

function array(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : fail(field, 'must be an array');
}

function operator(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' && OPERATORS.has(value) ? value : fail(field, 'must be AND or OR');
}

function negate(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'boolean' ? value : fail(field, 'must be true or false');
}

function cpeMatch(value: unknown, at: string): NvdCpeMatch {
  if (!isObject(value)) return fail(at, 'must be an object');
  if (typeof value.vulnerable !== 'boolean') fail(`${at}.vulnerable`, 'must be true or false');
  if (typeof value.criteria !== 'string' || !value.criteria.startsWith('cpe:2.3:')) fail(`${at}.criteria`, 'must be a CPE 2.3 name');
  const entry: NvdCpeMatch = { vulnerable: value.vulnerable as boolean, criteria: value.criteria as string };
  if (typeof value.matchCriteriaId === 'string') entry.matchCriteriaId = value.matchCriteriaId;
  for (const bound of BOUNDS) {
    const v = value[bound];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || v === '') fail(`${at}.${bound}`, 'must be a non-empty string');
    entry[bound] = v as string;
  }
  return entry;
}

function node(value: unknown, at: string): NvdNode {
  if (!isObject(value)) return fail(at, 'must be an object');
  const read: NvdNode = { cpeMatch: array(value.cpeMatch, `${at}.cpeMatch`).map((m, i) => cpeMatch(m, `${at}.cpeMatch[${i}]`)) };
  const op = operator(value.operator, `${at}.operator`);
  const not = negate(value.negate, `${at}.negate`);
  if (op !== undefined) read.operator = op;
  if (not !== undefined) read.negate = not;
  return read;
}

function configuration(value: unknown, at: string): NvdConfiguration {
  if (!isObject(value)) return fail(at, 'must be an object');
  const read: NvdConfiguration = { nodes: array(value.nodes, `${at}.nodes`).map((n, i) => node(n, `${at}.nodes[${i}]`)) };
  const op = operator(value.operator, `${at}.operator`);
  const not = negate(value.negate, `${at}.negate`);
  if (op !== undefined) read.operator = op;
  if (not !== undefined) read.negate = not;
  return read;
}

/**
 * The CVSS shown: the NVD's own (type `Primary`) v4.0, else v3.1, else v3.0; without one, the
 * first secondary (a CNA's or an ADP's) in that order. The score is computed from the vector
 * (cvss.ts), never taken from the record; a vector that does not parse is passed over.
 */
export function nvdCvss(metrics: unknown): NvdCvss | null {
  if (!isObject(metrics)) return null;
  let secondary: NvdCvss | null = null;
  for (const name of METRICS) {
    for (const metric of Array.isArray(metrics[name]) ? (metrics[name] as unknown[]) : []) {
      if (!isObject(metric) || !isObject(metric.cvssData) || typeof metric.cvssData.vectorString !== 'string') continue;
      const scored = cvssBaseScore(metric.cvssData.vectorString);
      if (!scored) continue;
      const primary = metric.type === 'Primary';
      const read = {
        score: scored.score,
        vector: scored.vector,
        source: typeof metric.source === 'string' ? metric.source : 'unknown',
        primary,
      };
      if (primary) return read;
      secondary ??= read;
    }
  }
  return secondary;
}

/** The English description (the NVD writes `en` first; a record without one gives its first). */
function description(value: unknown): string | null {
  const all = array(value, 'descriptions').filter(isObject);
  const english = all.find((d) => d.lang === 'en' && typeof d.value === 'string') ?? all.find((d) => typeof d.value === 'string');
  return english ? (english.value as string) : null;
}

/**
 * A parsed JSON value (a `cve` object, or a feed's `{"cve": {…}}` item) → the record as kept, or
 * a FeedRecordError naming the malformed field. `canonical` is its canonical JSON (json-text.ts
 * checkedCanonical), which its digest is of.
 */
export function readNvdRecord(value: unknown, canonical: string): NvdRecord {
  const cve = isObject(value) && isObject(value.cve) ? value.cve : value;
  if (!isObject(cve)) return fail('the record', 'must be a JSON object');
  const id = cve.id;
  if (typeof id !== 'string' || !CVE_ID.test(id)) return fail('id', 'must be a CVE id (CVE-YYYY-NNNN)');
  const status = text(cve, 'vulnStatus');
  const configurations = array(cve.configurations, 'configurations').map((c, i) => configuration(c, `configurations[${i}]`));
  const named = productsNamed(configurations);
  const modified = text(cve, 'lastModified');
  return {
    id,
    digest: createHash('sha256').update(canonical).digest('hex'),
    status,
    summary: description(cve.descriptions),
    cvss: nvdCvss(cve.metrics),
    configurations,
    productKeys: [...named.keys].sort(),
    everyProduct: named.everyProduct,
    cisaExploitAdd: text(cve, 'cisaExploitAdd'),
    references: array(cve.references, 'references')
      .filter(isObject)
      .filter((r) => typeof r.url === 'string')
      .map((r) => ({ url: r.url as string, source: typeof r.source === 'string' ? r.source : null })),
    published: text(cve, 'published'),
    modified,
    withdrawn: status === 'Rejected' ? (modified ?? text(cve, 'published') ?? '') : null,
  };
}
