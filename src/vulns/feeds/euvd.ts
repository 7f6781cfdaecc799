import { FeedRecordError } from './json-text.js';
import type { KevEntry } from './kev.js';

// ENISA's EU Vulnerability Database, as its daily dumps give it (firmware.md, Feeds): the
// EUVD↔CVE mapping, a CSV with the header `euvd_id,cve_id` (~380,000 rows, read line by line as
// it streams in), and the exploited list, a JSON array of {cveId, euvdId, dateAdded, sources}
// (~1,700 entries, read whole). The list's entries mark findings exploited and feed the bridge to
// Article 14 exactly as the two KEV catalogues' do, so they are read into the same KevEntry.

const CVE = /^CVE-\d{4}-\d{4,}$/;
const EUVD = /^EUVD-\d{4}-\d+$/;
const HEADER = /^\uFEFF?"?euvd_id"?\s*,\s*"?cve_id"?\s*$/i;

export interface EuvdPair {
  euvd: string;
  cve: string;
}

/** Whether the first line of a text is the mapping's header. */
export function looksLikeEuvdMapping(head: string): boolean {
  return HEADER.test(head.split(/\r?\n/, 1)[0] ?? '');
}

const unquote = (field: string) =>
  field
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .trim();

/**
 * The mapping's rows from its text as it streams in: `push` takes each chunk (UTF-8 split
 * anywhere) and returns the rows it completes; `end` the last one. A row that is not an EUVD id
 * and a CVE id is skipped and named by its line; the header must be the first line.
 */
export class EuvdMappingReader {
  private rest = '';
  private line = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  readonly skipped: Array<{ entry: string; reason: string }> = [];
  rows = 0;

  push(chunk: Uint8Array): EuvdPair[] {
    let text: string;
    try {
      text = this.rest + this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new FeedRecordError('is not UTF-8 text');
    }
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    if (this.rest.length > 4096) throw new FeedRecordError(`has a line ${this.line + 1} longer than 4,096 characters`);
    return this.read(lines);
  }

  end(): EuvdPair[] {
    const last = this.rest + this.decoder.decode();
    this.rest = '';
    const pairs = this.read(last === '' ? [] : [last]);
    if (this.line === 0) throw new FeedRecordError('is empty');
    return pairs;
  }

  private read(lines: string[]): EuvdPair[] {
    const pairs: EuvdPair[] = [];
    for (const raw of lines) {
      const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      this.line++;
      if (this.line === 1) {
        if (!HEADER.test(text)) throw new FeedRecordError('does not start with the header euvd_id,cve_id');
        continue;
      }
      if (text.trim() === '') continue;
      this.rows++;
      const fields = text.split(',');
      const [euvd, cve] = [unquote(fields[0] ?? ''), unquote(fields[1] ?? '')];
      if (fields.length !== 2) this.skipped.push({ entry: `line ${this.line}`, reason: `has ${fields.length} fields, not 2` });
      else if (!EUVD.test(euvd)) this.skipped.push({ entry: `line ${this.line}`, reason: 'euvd_id must be an EUVD id' });
      else if (!CVE.test(cve)) this.skipped.push({ entry: `line ${this.line}`, reason: 'cve_id must be a CVE id' });
      else pairs.push({ euvd, cve });
    }
    return pairs;
  }
}

/** Whether a parsed document is the EUVD's exploited list: an array of {cveId, euvdId, …}. */
export function isEuvdExploitedList(doc: unknown): boolean {
  return (
    Array.isArray(doc) &&
    doc.length > 0 &&
    doc.every((e) => e && typeof e === 'object' && !Array.isArray(e) && 'euvdId' in e && !('cveID' in e))
  );
}

/** `2025-10-06`, `2025-10-06T…` or `2025/10/06` → `2025-10-06`; anything else → null. */
function isoDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4})[-/](\d{2})[-/](\d{2})/.exec(value);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/**
 * The exploited list's entries as KEV entries of source `euvd`, each checked (the `sources` kept as
 * given: firmware.md, Readings); an entry that cannot be read is skipped with its position and why.
 * An entry without a CVE id is kept out: findings are named by CVE (it is counted among `skipped`).
 */
export function readEuvdExploited(doc: unknown[]): { entries: KevEntry[]; skipped: Array<{ entry: string; reason: string }> } {
  const entries: KevEntry[] = [];
  const skipped: Array<{ entry: string; reason: string }> = [];
  const seen = new Set<string>();
  doc.forEach((item, i) => {
    try {
      if (!item || typeof item !== 'object' || Array.isArray(item)) throw new FeedRecordError('must be an object');
      const data = item as Record<string, unknown>;
      const euvd = typeof data.euvdId === 'string' ? data.euvdId.trim() : '';
      if (!EUVD.test(euvd)) throw new FeedRecordError('euvdId must be an EUVD id');
      const cve = typeof data.cveId === 'string' ? data.cveId.trim() : '';
      if (!CVE.test(cve)) throw new FeedRecordError(`${euvd} names no CVE id`);
      if (seen.has(cve)) throw new FeedRecordError(`${cve} is listed twice`);
      if (data.sources !== undefined && (!Array.isArray(data.sources) || data.sources.some((s) => typeof s !== 'string')))
        throw new FeedRecordError('sources must be an array of strings');
      seen.add(cve);
      entries.push({ source: 'euvd', cve, euvd, dateAdded: isoDate(data.dateAdded), ransomware: null, data });
    } catch (error) {
      if (!(error instanceof FeedRecordError)) throw error;
      skipped.push({ entry: `#${i + 1}`, reason: error.message });
    }
  });
  return { entries, skipped };
}
