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

/** What the sentence reads of the evidence (the stored JSON's shape, its checks aside). */
export type SpokenEvidence = Pick<Evidence, 'cpe' | 'cpe_source' | 'criteria' | 'range' | 'unbounded' | 'conditional' | 'condition'> & {
  comparison: Pick<Comparison, 'version' | 'version_from' | 'sbom_version' | 'compared_as' | 'stripped'>;
};

const SOURCE_WORDS: Record<CpeSource, string> = {
  sbom: 'from the SBOM',
  vendor_table: 'with its vendor from the vendor table',
  mapping: 'through the CPE confirmed for its name',
};

/**
 * The evidence in one sentence for people (firmware.md: "busybox 1.36.1 from the SBOM is in
 * cpe:2.3:a:busybox:busybox ≤ 1.36.1"): the component, where its CPE came from, the criterion
 * with its range, then what qualifies it — the version the SBOM gave when the CPE's was used,
 * the build's decorations taken off, a criterion without bound, a condition nothing decided.
 */
export function evidenceSentence(componentName: string, e: SpokenEvidence): string {
  const c = e.comparison;
  const version = c.version ?? c.sbom_version;
  const subject = `${componentName}${version ? ` ${version}` : ''} ${SOURCE_WORDS[e.cpe_source]}`;
  const range = rangeText(e.range);
  const criteria = shortCriteria(e.criteria);
  let sentence = e.unbounded
    ? `${subject} is named by ${criteria}, which bounds no version`
    : `${subject} is in ${criteria}${range ? ` ${range}` : ''}`;
  const notes: string[] = [];
  if (c.version_from === 'cpe' && c.sbom_version !== null && c.sbom_version !== c.version)
    notes.push(`the CPE's version, where the SBOM says ${c.sbom_version}`);
  if (c.stripped.length > 0 && c.compared_as !== null) notes.push(`compared as ${c.compared_as}, ${c.stripped.join(', ')} taken off`);
  if (e.cpe_source !== 'sbom') notes.push(`as ${e.cpe}`);
  if (notes.length > 0) sentence += ` (${notes.join('; ')})`;
  if (e.conditional && e.condition) sentence += `; ${e.condition}`;
  return `${sentence}.`;
}
