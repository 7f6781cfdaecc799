import type { BuildVerdict } from '../../sbom/parse/build-verdicts.js';
import { unstorableReason } from '../../shared/storable-text.js';
import { ANALYSIS_DETAIL_MAX, type AnalysisState, JUSTIFICATIONS } from '../vulns.schemas.js';

// The build's own verdicts as analyses (firmware.md, Readings, "Build verdicts, mapped"): Yocto's
// cve-check summary, OpenEmbedded's SPDX 3 VEX relationships, Buildroot's CycloneDX analyses.

/** A verdict as any build wrote it (cve-check's come from its `cve-summary.json`). */
export type AnyBuildVerdict = Omit<BuildVerdict, 'source'> & { source: BuildVerdict['source'] | 'cve-check' };

/** The analysis a build's verdict sets. */
export interface BuildAnalysis {
  vulnerability: string;
  state: AnalysisState;
  justification: string | null;
  responses: string[];
  detail: string | null;
}

const SPDX3_JUSTIFICATION: Record<string, string> = {
  vulnerableCodeNotPresent: 'code_not_present',
  vulnerableCodeNotInExecutePath: 'code_not_reachable',
  vulnerableCodeCannotBeControlledByAdversary: 'requires_environment',
  inlineMitigationsAlreadyExist: 'protected_by_mitigating_control',
};

/** The build's words kept as the detail: storable, and within the analysis's bound. */
function detailOf(words: string | null): string | null {
  if (words === null || unstorableReason(words) !== null) return null;
  return words.length > ANALYSIS_DETAIL_MAX ? `${words.slice(0, ANALYSIS_DETAIL_MAX - 1)}…` : words;
}

/** One verdict as its analysis; null for a status the table does not know. */
export function buildAnalysis(v: AnyBuildVerdict): BuildAnalysis | null {
  const base = { vulnerability: v.vulnerability.trim(), detail: detailOf(v.detail) };
  const as = (state: AnalysisState, justification: string | null = null): BuildAnalysis => ({
    ...base,
    state,
    justification,
    responses: state === 'resolved' ? ['update'] : [],
  });
  if (v.source === 'cve-check') {
    const status = v.status.toLowerCase();
    const reason = (v.justification ?? '').toLowerCase();
    if (status === 'patched') return as('resolved');
    if (status === 'unpatched') return as('exploitable');
    if (status !== 'ignored') return null;
    if (reason === 'cpe-incorrect') return as('false_positive');
    if (reason === 'not-applicable-platform' || reason === 'not-applicable-config') return as('not_affected', 'code_not_present');
    return as('not_affected');
  }
  if (v.source === 'spdx3') {
    if (v.status === 'fixed') return as('resolved');
    if (v.status === 'affected') return as('exploitable');
    if (v.status === 'under_investigation') return as('in_triage');
    if (v.status !== 'not_affected') return null;
    if (v.justification === 'componentNotPresent') return as('false_positive');
    return as('not_affected', SPDX3_JUSTIFICATION[v.justification ?? ''] ?? null);
  }
  // CycloneDX (Buildroot): its own vocabulary.
  if (v.status === 'resolved' || v.status === 'resolved_with_pedigree') return as('resolved');
  if (v.status === 'not_affected') {
    const j = v.justification;
    return as('not_affected', j !== null && (JUSTIFICATIONS as readonly string[]).includes(j) ? j : null);
  }
  if (v.status === 'in_triage' || v.status === 'exploitable' || v.status === 'false_positive') return as(v.status);
  return null;
}

/**
 * Which of several verdicts on one vulnerability stands for the product (a build may judge the
 * same CVE in two packages, Buildroot's gnupg and gnupg2): the most cautious, the first of equals.
 */
const CAUTION: Record<AnalysisState, number> = { exploitable: 0, in_triage: 1, resolved: 2, not_affected: 3, false_positive: 4 };

/** The analyses of a build's verdicts, one per vulnerability (as written, upper-cased CVE ids), in first-seen order. */
export function buildAnalyses(verdicts: readonly AnyBuildVerdict[]): BuildAnalysis[] {
  const byVulnerability = new Map<string, BuildAnalysis>();
  for (const v of verdicts) {
    const analysis = buildAnalysis(v);
    if (analysis === null || analysis.vulnerability === '') continue;
    const name = /^cve-/i.test(analysis.vulnerability) ? analysis.vulnerability.toUpperCase() : analysis.vulnerability;
    const before = byVulnerability.get(name);
    if (before === undefined || CAUTION[analysis.state] < CAUTION[before.state])
      byVulnerability.set(name, { ...analysis, vulnerability: name });
  }
  return [...byVulnerability.values()];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** Whether `doc` is a Yocto cve-check summary (`cve-summary.json`: `{"version": "1", "package": [...]}`). */
export function isCveSummary(doc: unknown): boolean {
  return isObject(doc) && Array.isArray(doc.package) && doc.bomFormat === undefined;
}

/** The verdicts of a cve-check summary: per package, each `issue` with its `status` and `detail`/`description`. */
export function cveSummaryVerdicts(doc: unknown): AnyBuildVerdict[] {
  if (!isCveSummary(doc)) return [];
  const out: AnyBuildVerdict[] = [];
  for (const p of (doc as { package: unknown[] }).package) {
    if (!isObject(p) || !Array.isArray(p.issue)) continue;
    for (const issue of p.issue) {
      if (!isObject(issue)) continue;
      const id = text(issue.id);
      const status = text(issue.status);
      if (id === null || status === null) continue;
      const reason = text(issue.detail);
      const words = [reason, text(issue.description)].filter((w): w is string => w !== null).join(': ');
      out.push({ vulnerability: id, status, justification: reason, detail: words || null, source: 'cve-check' });
    }
  }
  return out;
}
