import { lookupProduct, normaliseProductName } from './vendor-table.js';

// Candidate CPEs for a component named by name and version alone (firmware.md, "Candidates"):
// the vendor table's pairs for its name, and the NVD's own vendor:product names whose product
// is the same name once normalised (`u-boot` = `u_boot`), or the same without a `lib` prefix
// (`libcurl`, `curl`). Pure: the caller brings the NVD's product keys.

export type CandidateConfidence = 'high' | 'medium' | 'low';

export interface CpeCandidate {
  cpe: string;
  confidence: CandidateConfidence;
}

/** The NVD's product keys (`vendor:product`) by normalised product name. */
export type NvdProductIndex = ReadonlyMap<string, readonly string[]>;

export function nvdProductIndex(keys: Iterable<string>): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const key of keys) {
    const colon = key.indexOf(':');
    if (colon < 0) continue;
    const name = normaliseProductName(key.slice(colon + 1));
    index.set(name, [...(index.get(name) ?? []), key]);
  }
  return index;
}

const cpeOf = (part: string, key: string) => `cpe:2.3:${part}:${key}:*:*:*:*:*:*:*:*`;

/** A name without its `lib` prefix, or with one: `libcurl` ↔ `curl`. */
function libTwin(name: string): string | null {
  if (name.startsWith('lib') && name.length > 3) return name.slice(3).replace(/^_/, '');
  return `lib${name}`;
}

/**
 * Candidates for a component name, best first: the vendor table's (high: a build system states
 * the pair), the NVD's products of the same normalised name (medium), of its `lib` twin (low).
 * The part of an NVD name is left `*`: the criterion's is taken when matched (component-cpes.ts).
 */
export function candidatesFor(name: string, nvd: NvdProductIndex): CpeCandidate[] {
  const out = new Map<string, CpeCandidate>();
  const seen = new Set<string>();
  const add = (key: string, part: string, confidence: CandidateConfidence) => {
    if (seen.has(key)) return;
    seen.add(key);
    out.set(key, { cpe: cpeOf(part, key), confidence });
  };
  const normalised = normaliseProductName(name);
  if (normalised === '') return [];
  const entry = lookupProduct(normalised);
  for (const pair of entry?.pairs ?? []) add(`${pair.vendor}:${pair.product}`, entry!.part, 'high');
  for (const key of nvd.get(normalised) ?? []) add(key, '*', 'medium');
  const twin = libTwin(normalised);
  for (const key of (twin === null ? undefined : nvd.get(twin)) ?? []) add(key, '*', 'low');
  return [...out.values()];
}
