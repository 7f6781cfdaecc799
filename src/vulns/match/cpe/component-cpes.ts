import { readComponentVersion } from './decorations.js';
import { parseCpe } from './parse.js';
import { readUpstream } from './upstream-version.js';
import { lookupProduct, partOfPair } from './vendor-table.js';
import { formatCpe, literal, textOf, type Wfn, withValues } from './wfn.js';

// Which CPEs a component is matched by (firmware.md, "Which CPE a component has" and Readings):
// its SBOM CPEs, or a person's confirmed mapping, read leniently; a `*` vendor filled from the
// vendor table (confidence `inferred`), never left as a wildcard; and the version each is matched
// with. Pure: the caller brings the component's CPEs and their source.

export type CpeSource = 'sbom' | 'vendor_table' | 'mapping';
export type Confidence = 'exact' | 'inferred' | 'confirmed';
export type NotMatchable = 'cpe_invalid' | 'cpe_vendor_unknown' | 'version_missing' | 'version_unparsable';

/** One CPE a component is matched by. */
export interface ComponentIdentity {
  wfn: Wfn;
  /** The CPE matched, as a 2.3 string (the vendor table's vendor filled in). */
  cpe: string;
  /** The CPE as the SBOM or the mapping wrote it. */
  given: string;
  source: CpeSource;
  confidence: Confidence;
  /**
   * Set when the CPE gave vendor and product but part `*` and the table knows no part for that
   * pair: the part is then taken as the criterion's (vendor and product name the thing).
   */
  partFromCriterion: boolean;
  /** The version it is matched with: the CPE's when a value, else the SBOM's; null when neither. */
  version: { value: string; from: 'cpe' | 'sbom'; sbomVersion: string | null } | null;
}

export interface ComponentCpeInput {
  name: string;
  version?: string | null;
  cpes: readonly { cpe: string; source: 'sbom' | 'mapping' }[];
}

export interface ResolvedCpes {
  identities: ComponentIdentity[];
  /** Why a CPE of the component could not be used, each named (for coverage and logs). */
  problems: { cpe: string; reason: 'cpe_invalid' | 'cpe_vendor_unknown'; detail: string }[];
  /** The component's coverage reason when it cannot be matched by CPE, else null. */
  notMatchable: NotMatchable | null;
}

function versionOf(wfn: Wfn, sbomVersion: string | null): ComponentIdentity['version'] {
  const fromCpe = textOf(wfn.version);
  if (fromCpe !== null)
    return { value: fromCpe, from: 'cpe', sbomVersion: sbomVersion !== null && sbomVersion !== fromCpe ? sbomVersion : null };
  return sbomVersion === null ? null : { value: sbomVersion, from: 'sbom', sbomVersion: null };
}

export function resolveComponentCpes(component: ComponentCpeInput): ResolvedCpes {
  const sbomVersion = component.version?.trim() ? component.version.trim() : null;
  const identities: ComponentIdentity[] = [];
  const problems: ResolvedCpes['problems'] = [];
  for (const { cpe: given, source } of component.cpes) {
    const parsed = parseCpe(given, 'lenient');
    if (!parsed.ok) {
      problems.push({ cpe: given, reason: 'cpe_invalid', detail: parsed.error });
      continue;
    }
    const { wfn } = parsed;
    const product = textOf(wfn.product);
    if (product === null) {
      problems.push({ cpe: given, reason: 'cpe_invalid', detail: 'the CPE names no product' });
      continue;
    }
    const confidence: Confidence = source === 'mapping' ? 'confirmed' : 'exact';
    const vendor = textOf(wfn.vendor);
    if (vendor !== null) {
      // vendor and product given: matched as given; a `*` part only is inferred
      const part = wfn.part.kind === 'any' ? partOfPair(vendor, product) : null;
      const named = part === null ? wfn : withValues(wfn, { part: literal(part) });
      identities.push({
        wfn: named,
        cpe: formatCpe(named),
        given,
        source,
        confidence,
        partFromCriterion: named.part.kind === 'any',
        version: versionOf(named, sbomVersion),
      });
      continue;
    }
    const entry = lookupProduct(product);
    const stated = textOf(wfn.part);
    const usable = entry === null || (stated !== null && stated !== entry.part) ? [] : entry.pairs;
    if (usable.length === 0) {
      problems.push({ cpe: given, reason: 'cpe_vendor_unknown', detail: `the vendor table has no vendor for ${JSON.stringify(product)}` });
      continue;
    }
    for (const pair of usable) {
      const named = withValues(wfn, { part: literal(entry!.part), vendor: literal(pair.vendor), product: literal(pair.product) });
      const version = versionOf(named, sbomVersion);
      identities.push({
        wfn: named,
        cpe: formatCpe(named),
        given,
        source: 'vendor_table',
        confidence: 'inferred',
        partFromCriterion: false,
        version,
      });
    }
  }
  return { identities, problems, notMatchable: reasonOf(identities, problems) };
}

function reasonOf(identities: ComponentIdentity[], problems: ResolvedCpes['problems']): NotMatchable | null {
  if (identities.length === 0) return problems[0]?.reason ?? null;
  if (identities.every((identity) => identity.version === null)) return 'version_missing';
  const readable = identities.some((identity) => {
    const version = identity.version;
    return version !== null && readUpstream(readComponentVersion(version.value).upstream) !== null;
  });
  return readable ? null : 'version_unparsable';
}
