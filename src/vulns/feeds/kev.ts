import { FeedRecordError } from './json-text.js';

// The two catalogues of known exploited vulnerabilities. CISA's is an object with a
// `vulnerabilities` array (cveID, dateAdded, knownRansomwareCampaignUse, …); the EU CSIRTs
// Network's is an array of entries (cveID, euvdID, dateReported as YYYY/MM/DD, …).

export type KevSource = 'cisa' | 'eu' | 'euvd';

export interface KevEntry {
  source: KevSource;
  cve: string;
  euvd: string | null;
  /** ISO date (YYYY-MM-DD) it was added (CISA) or reported (EU). */
  dateAdded: string | null;
  /** CISA's knownRansomwareCampaignUse ("Known", "Unknown"). */
  ransomware: string | null;
  data: Record<string, unknown>;
}

const CVE = /^CVE-\d{4}-\d{4,}$/;
const EUVD = /^EUVD-\d{4}-\d+$/;

/** `2026/08/17` or `2026-08-17` → `2026-08-17`; anything else → null. */
function isoDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4})[-/](\d{2})[-/](\d{2})/.exec(value);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/** Whether a parsed document is the CISA catalogue or the EU list (or neither). */
export function kevKindOf(doc: unknown): 'cisa-kev' | 'eu-kev' | null {
  if (doc && typeof doc === 'object' && !Array.isArray(doc) && Array.isArray((doc as { vulnerabilities?: unknown }).vulnerabilities)) {
    const first = (doc as { vulnerabilities: unknown[] }).vulnerabilities[0];
    if ('catalogVersion' in doc || (first && typeof first === 'object' && 'cveID' in first)) return 'cisa-kev';
  }
  if (Array.isArray(doc) && doc.length > 0 && doc.every((e) => e && typeof e === 'object' && 'cveID' in e)) {
    return doc.some((e) => 'euvdID' in e || 'dateReported' in e) ? 'eu-kev' : null;
  }
  return null;
}

/**
 * The catalogue's entries, each checked; an entry that cannot be read is returned among
 * `skipped` with its position and why, and never stops the rest.
 */
export function readKev(
  doc: unknown,
  kind: 'cisa-kev' | 'eu-kev',
): { entries: KevEntry[]; skipped: Array<{ entry: string; reason: string }> } {
  const items: unknown[] = kind === 'cisa-kev' ? ((doc as { vulnerabilities?: unknown[] }).vulnerabilities ?? []) : (doc as unknown[]);
  const entries: KevEntry[] = [];
  const skipped: Array<{ entry: string; reason: string }> = [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    try {
      if (!item || typeof item !== 'object' || Array.isArray(item)) throw new FeedRecordError('must be an object');
      const data = item as Record<string, unknown>;
      const cve = typeof data.cveID === 'string' ? data.cveID.trim() : '';
      if (!CVE.test(cve)) throw new FeedRecordError('cveID must be a CVE id');
      if (seen.has(cve)) throw new FeedRecordError(`${cve} is listed twice`);
      seen.add(cve);
      const euvd = typeof data.euvdID === 'string' && EUVD.test(data.euvdID.trim()) ? data.euvdID.trim() : null;
      entries.push({
        source: kind === 'cisa-kev' ? 'cisa' : 'eu',
        cve,
        euvd,
        dateAdded: isoDate(kind === 'cisa-kev' ? data.dateAdded : data.dateReported),
        ransomware: typeof data.knownRansomwareCampaignUse === 'string' ? data.knownRansomwareCampaignUse : null,
        data,
      });
    } catch (error) {
      if (!(error instanceof FeedRecordError)) throw error;
      skipped.push({ entry: `#${i + 1}`, reason: error.message });
    }
  });
  return { entries, skipped };
}
