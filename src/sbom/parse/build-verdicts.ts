import type { Json } from './json-checks.js';

// The build system's own verdicts on CVEs, carried inside the SBOM it wrote (firmware.md, "The
// build system's own verdicts"): Buildroot's CycloneDX `vulnerabilities[]` with an `analysis`,
// and the VEX assessment relationships of OpenEmbedded's SPDX 3.0. Read here as the document
// states them; what each means as an analysis is the vulnerabilities feature's (vex/build-verdicts.ts).

/** One verdict as the build wrote it. */
export interface BuildVerdict {
  /** The vulnerability's id as written (a CVE id, for these builds). */
  vulnerability: string;
  /** CycloneDX: the analysis state; SPDX 3: `fixed`, `not_affected`, `affected` or `under_investigation`. */
  status: string;
  /** CycloneDX's justification, or SPDX 3's `security_justificationType`. */
  justification: string | null;
  /** The build's words: CycloneDX's `detail`, SPDX 3's impact statement or status notes. */
  detail: string | null;
  /** Where the verdict came from. */
  source: 'cyclonedx' | 'spdx3';
}

/** At most this many verdicts are kept of one document (a real build writes a few hundred). */
export const MAX_BUILD_VERDICTS = 100_000;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** CycloneDX `vulnerabilities[]` that carry an analysis state. */
export function cycloneDxVerdicts(doc: Json): BuildVerdict[] {
  const list = doc.vulnerabilities;
  if (!Array.isArray(list) || list.length === 0) return [];
  const out: BuildVerdict[] = [];
  for (const v of list) {
    if (out.length >= MAX_BUILD_VERDICTS) break;
    if (!isObject(v) || !isObject(v.analysis)) continue;
    const id = text(v.id);
    const state = text(v.analysis.state);
    if (id === null || state === null) continue;
    out.push({
      vulnerability: id,
      status: state,
      justification: text(v.analysis.justification),
      detail: text(v.analysis.detail),
      source: 'cyclonedx',
    });
  }
  return out;
}

const SPDX3_STATUS: Record<string, string> = {
  security_VexFixedVulnAssessmentRelationship: 'fixed',
  security_VexNotAffectedVulnAssessmentRelationship: 'not_affected',
  security_VexAffectedVulnAssessmentRelationship: 'affected',
  security_VexUnderInvestigationVulnAssessmentRelationship: 'under_investigation',
};

/**
 * SPDX 3 VEX assessment relationships of `graph` (from: a security_Vulnerability; its name is its
 * `cve` identifier, else its name, else the last segment of its id).
 */
export function spdx3Verdicts(graph: readonly Json[], byId: ReadonlyMap<string, Json>): BuildVerdict[] {
  const out: BuildVerdict[] = [];
  for (const node of graph) {
    const status = SPDX3_STATUS[node.type as string];
    if (status === undefined || out.length >= MAX_BUILD_VERDICTS) continue;
    const from = text(node.from);
    if (from === null) continue;
    const id = vulnerabilityName(byId.get(from), from);
    out.push({
      vulnerability: id,
      status,
      justification: text(node.security_justificationType),
      detail: text(node.security_impactStatement) ?? text(node.security_statusNotes) ?? text(node.security_actionStatement),
      source: 'spdx3',
    });
  }
  return out;
}

function vulnerabilityName(node: Json | undefined, spdxId: string): string {
  const identifiers = Array.isArray(node?.externalIdentifier) ? (node.externalIdentifier as unknown[]) : [];
  for (const i of identifiers) if (isObject(i) && i.externalIdentifierType === 'cve' && text(i.identifier)) return text(i.identifier)!;
  return text(node?.name) ?? spdxId.slice(spdxId.lastIndexOf('/') + 1);
}
