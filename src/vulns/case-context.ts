import type { Executor } from '../db/index.js';

// What an Article 14 case opened from an exploited finding starts with (vulnerabilities.md,
// "From an exploited finding to Article 14"): the vulnerability the platform raised its signal for.

export interface ExploitedContext {
  vulnerability: string;
  cve: string | null;
  euvd: string | null;
  summary: string | null;
  cvss: { score: number; vector: string } | null;
  /** Releases whose latest revision holds an affected component. */
  releases: string[];
  /** Releases whose newest revision no longer holds it: the fix, with when that revision came. */
  fixedIn: Array<{ release: string; at: string }>;
}

/** The exploited vulnerability behind a signal the platform raised, or null for any other signal. */
export async function exploitedContext(db: Executor, signalId: string): Promise<ExploitedContext | null> {
  const raised = await db
    .selectFrom('exploited_signals')
    .select(['product_id', 'vuln_key'])
    .where('signal_id', '=', signalId)
    .executeTakeFirst();
  if (!raised) return null;
  const [group, findings] = await Promise.all([
    db.selectFrom('vulnerabilities').selectAll().where('vuln_key', '=', raised.vuln_key).executeTakeFirst(),
    db
      .selectFrom('findings')
      .select(['releases', 'gone_at', 'gone_with'])
      .where('product_id', '=', raised.product_id)
      .where('vuln_key', '=', raised.vuln_key)
      .execute(),
  ]);
  const live = findings.filter((f) => f.gone_at === null);
  const releases = [...new Set(live.flatMap((f) => JSON.parse(f.releases) as string[]))].sort();
  const fixedIn = findings
    .filter((f) => f.gone_at !== null && f.gone_with !== null)
    .map((f) => ({ release: f.gone_with!.replace(/ revision \d+$/, ''), at: f.gone_at! }));
  return {
    vulnerability: raised.vuln_key,
    cve: group?.cve ?? null,
    euvd: group?.euvd ?? null,
    summary: group?.summary ?? null,
    cvss: group?.cvss_score != null ? { score: group.cvss_score, vector: group.cvss_vector! } : null,
    releases,
    fixedIn: live.length === 0 ? fixedIn : [],
  };
}
