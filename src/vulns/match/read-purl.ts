import { affects, type OsvAffected } from './osv-range.js';
import { packageOfOsv, packageOfPurl } from './purl.js';
import { orderOf } from './version-order.js';

// A component as matching reads it, and whether a record affects it: pure, so the matcher, the
// findings' fixed versions and coverage read a purl the same way.

/** A component's purl read for matching: its package version, or why it has none. */
export type PurlReading =
  | { status: 'matchable' | 'version_unparsable'; key: string; version: string; ecosystem: string }
  | { status: 'no_version'; ecosystem?: string }
  | { status: 'no_purl' | 'invalid_purl' | 'ecosystem_not_covered' };

/** What a component's purl says for matching: a package version, or why it has none (coverage). */
export function readPurl(purl: string | null): PurlReading {
  if (!purl) return { status: 'no_purl' };
  const read = packageOfPurl(purl);
  if ('unmatchable' in read)
    return read.unmatchable === 'no_version' ? { status: 'no_version', ecosystem: read.ecosystem } : { status: read.unmatchable };
  if (read.version === null) return { status: 'no_version', ecosystem: read.ecosystem };
  const order = orderOf(read.ecosystem);
  // A version the order cannot parse still matches exact `versions[]` entries, never a range.
  return {
    key: read.key,
    version: read.version,
    ecosystem: read.ecosystem,
    status: order?.valid(read.version) ? 'matchable' : 'version_unparsable',
  };
}

/** Whether a record's affected entries put `version` of the package `key` in range. */
export function recordAffects(affected: readonly OsvAffected[], key: string, version: string): boolean {
  for (const entry of affected) {
    const pkg = entry.package && packageOfOsv(entry.package);
    if (pkg?.key === key && affects(entry, version, orderOf(pkg.ecosystem))) return true;
  }
  return false;
}

/**
 * The versions a group's records say fix the component: the `fixed` events of its package above
 * its version, lowest first (all of them when the order cannot compare).
 */
export function fixedVersions(records: ReadonlyArray<readonly OsvAffected[]>, purl: string | null): string[] {
  const reading = readPurl(purl);
  if (!('key' in reading)) return [];
  const fixed = new Set<string>();
  for (const affected of records) {
    for (const entry of affected) {
      if (entry.package && packageOfOsv(entry.package)?.key === reading.key) {
        for (const range of entry.ranges ?? []) for (const e of range.events) if (e.fixed) fixed.add(e.fixed);
      }
    }
  }
  const order = orderOf(reading.ecosystem);
  if (!order?.valid(reading.version)) return [...fixed];
  const above = [...fixed].filter((v) => order.valid(v) && order.compare(v, reading.version) > 0);
  return above.sort((a, b) => order.compare(a, b));
}
