import type { ImportSummary } from '../vulns.schemas.js';

// One batch of an import counted against what is stored (OSV's records and the NVD's alike):
// withdrawn, new, changed or unchanged by content digest; the ones to store, and which of those
// replace a stored record.

interface Tallied {
  id: string;
  digest: string;
  withdrawn: string | null;
  published: string | null;
}

export function tallyBatch<R extends Tallied>(
  records: readonly R[],
  heads: ReadonlyMap<string, { digest: string }>,
  summary: Pick<ImportSummary, 'new' | 'changed' | 'unchanged' | 'withdrawn'>,
): { changed: R[]; stored: string[]; newest: string | null } {
  let newest: string | null = null;
  for (const r of records) {
    const head = heads.get(r.id);
    if (r.withdrawn) summary.withdrawn++;
    else if (!head) summary.new++;
    else if (head.digest !== r.digest) summary.changed++;
    else summary.unchanged++;
    if (r.published && (newest === null || r.published > newest)) newest = r.published;
  }
  const changed = records.filter((r) => heads.get(r.id)?.digest !== r.digest);
  return { changed, stored: changed.filter((r) => heads.has(r.id)).map((r) => r.id), newest };
}

/** The later of two ISO dates, either possibly missing. */
export const later = (a: string | null, b: string | null): string | null => (a === null || (b !== null && b > a) ? b : a);
