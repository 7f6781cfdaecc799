import type { Executor } from '../db/index.js';
import { decodeIds } from '../sbom/store/id-list.js';
import { findingsRepo } from './store/findings.repo.js';

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
  /** The affected components of the product (name and version), live or gone. */
  components: Array<{ name: string; version: string | null }>;
  /**
   * The fix, with when its revision came: the first release whose latest revision, newer than
   * every one still holding an affected component, holds none; or, once no release holds one,
   * the revision that dropped the last.
   */
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
      .selectFrom('findings as f')
      .innerJoin('components as c', 'c.id', 'f.component_id')
      .select(['f.component_id', 'f.releases', 'f.gone_at', 'f.gone_with', 'c.name', 'c.version'])
      .where('f.product_id', '=', raised.product_id)
      .where('f.vuln_key', '=', raised.vuln_key)
      .execute(),
  ]);
  const live = findings.filter((f) => f.gone_at === null);
  const releases = [...new Set(live.flatMap((f) => JSON.parse(f.releases) as string[]))].sort();
  let fixedIn = findings
    .filter((f) => f.gone_at !== null && f.gone_with !== null)
    .map((f) => ({ release: f.gone_with!.replace(/ revision \d+$/, ''), at: f.gone_at! }));
  if (live.length > 0) {
    // Still in some release: a release that came after all of those and holds none is the fix.
    const affected = new Set(findings.map((f) => Number(f.component_id)));
    const latest = (await findingsRepo.latestRevisions(db, raised.product_id)).sort((a, b) => a.ingested_at.localeCompare(b.ingested_at));
    const holds = (r: (typeof latest)[number]) => decodeIds(r.component_ids).some((id) => affected.has(id));
    let lastHolding = -1;
    latest.forEach((r, i) => {
      if (holds(r)) lastHolding = i;
    });
    // None holds it (matching has not caught up with a new revision yet): no proposal until it has.
    const fix = lastHolding >= 0 ? latest[lastHolding + 1] : undefined;
    fixedIn = fix ? [{ release: fix.release_version, at: fix.ingested_at }] : [];
  }
  return {
    vulnerability: raised.vuln_key,
    cve: group?.cve ?? null,
    euvd: group?.euvd ?? null,
    summary: group?.summary ?? null,
    cvss: group?.cvss_score != null ? { score: group.cvss_score, vector: group.cvss_vector! } : null,
    releases,
    components: [...new Map(findings.map((f) => [`${f.name}\u0000${f.version ?? ''}`, { name: f.name, version: f.version }])).values()],
    fixedIn,
  };
}

/** The same, for the case (or signal) of this incident number in the organisation. */
export async function exploitedContextOf(db: Executor, orgId: string, incidentNumber: number): Promise<ExploitedContext | null> {
  const signal = await db
    .selectFrom('signals')
    .select('id')
    .where('org_id', '=', orgId)
    .where('incident_number', '=', incidentNumber)
    .executeTakeFirst();
  return signal ? exploitedContext(db, signal.id) : null;
}
