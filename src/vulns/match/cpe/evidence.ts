import type { Confidence, CpeSource } from './component-cpes.js';

// Why a finding made from a CPE exists (firmware.md, "Every finding made from a CPE carries its
// evidence"). Field names are the ones `finding list --json` shows under `match`, so the object
// can be stored and shown as it is.

/** One check of the component's version against the criterion: `1.36.1 <= 1.33.1` is false. */
export interface VersionCheck {
  /** `=` an exact version; `release` the same release, any update (`1.0.2:*` holds 1.0.2-beta2). */
  op: '>=' | '>' | '<=' | '<' | '=' | 'release';
  against: string;
  holds: boolean;
}

/** The comparison made, with both versions. */
export interface Comparison {
  /** The component's version as read: the CPE's (or the SBOM's), its update joined (`9.3-p1`). */
  version: string | null;
  version_from: 'cpe' | 'sbom' | null;
  /** The SBOM's own version when it differs from the CPE's, which was used. */
  sbom_version: string | null;
  /** What was compared, the build's decorations taken off. */
  compared_as: string | null;
  stripped: string[];
  /** `upstream`: the upstream order; `literal`: an exact version neither side's order reads, equal as text; null: no version compared. */
  order: 'upstream' | 'literal' | null;
  checks: VersionCheck[];
}

export interface VersionRange {
  start_including?: string;
  start_excluding?: string;
  end_including?: string;
  end_excluding?: string;
}

export interface Evidence {
  cpe: string;
  cpe_source: CpeSource;
  criteria: string;
  match_criteria_id: string | null;
  range: VersionRange | null;
  comparison: Comparison;
  confidence: Confidence;
  unbounded: boolean;
  conditional: boolean;
  condition: string | null;
}

/** A criterion shortened for people: its trailing `*` attributes dropped (`cpe:2.3:h:huawei:hg532:-`). */
export function shortCriteria(criteria: string): string {
  return criteria.replace(/(:\*)+$/, '');
}

/** A range in words: `≥ 1.16.0, ≤ 1.33.1`. */
export function rangeText(range: VersionRange | null): string {
  if (range === null) return '';
  const parts = [
    range.start_including === undefined ? null : `≥ ${range.start_including}`,
    range.start_excluding === undefined ? null : `> ${range.start_excluding}`,
    range.end_including === undefined ? null : `≤ ${range.end_including}`,
    range.end_excluding === undefined ? null : `< ${range.end_excluding}`,
  ];
  return parts.filter((p) => p !== null).join(', ');
}
