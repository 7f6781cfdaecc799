import type { ComponentIdentity } from './component-cpes.js';
import type { Comparison, VersionRange } from './evidence.js';
import { parseCpe } from './parse.js';
import type { Wfn } from './wfn.js';

// An NVD record's `cpeMatch` entry, read once, and what matching it against one component CPE
// answers (entry-match.ts decides it; configurations.ts combines the answers).

/** A `cpeMatch` entry as the NVD CVE API 2.0 writes it. */
export interface NvdCpeMatch {
  vulnerable: boolean;
  criteria: string;
  matchCriteriaId?: string;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
}

/** An entry with its criteria read once, strictly (the NVD writes NISTIR 7695 names). */
export interface Criterion {
  entry: NvdCpeMatch;
  /** null when the criteria do not parse: such an entry decides nothing. */
  wfn: Wfn | null;
  range: VersionRange | null;
}

export type Mode = 'vulnerable' | 'term';

export type EntryResult =
  /** Not this part, vendor and product: the entry says nothing about this component. */
  | { kind: 'other' }
  | { kind: 'no'; comparison: Comparison; why: string }
  /** The component did not say, or its version cannot be ordered (`unordered`). */
  | { kind: 'undecided'; comparison: Comparison; why: string; unordered: boolean }
  /** A match; `condition` when only conditionally (the record names no version of it). */
  | { kind: 'yes'; comparison: Comparison; unbounded: boolean; condition: string | null };

export function readCriterion(entry: NvdCpeMatch): Criterion {
  const parsed = parseCpe(entry.criteria ?? '', 'strict');
  const range: VersionRange = {};
  if (entry.versionStartIncluding !== undefined) range.start_including = entry.versionStartIncluding;
  if (entry.versionStartExcluding !== undefined) range.start_excluding = entry.versionStartExcluding;
  if (entry.versionEndIncluding !== undefined) range.end_including = entry.versionEndIncluding;
  if (entry.versionEndExcluding !== undefined) range.end_excluding = entry.versionEndExcluding;
  return { entry, wfn: parsed.ok ? parsed.wfn : null, range: Object.keys(range).length === 0 ? null : range };
}

/** The comparison of a component whose version was not (or could not be) compared. */
export function noComparison(identity: ComponentIdentity): Comparison {
  const v = identity.version;
  return {
    version: v?.value ?? null,
    version_from: v?.from ?? null,
    sbom_version: v?.sbomVersion ?? null,
    compared_as: null,
    stripped: [],
    order: null,
    checks: [],
  };
}
