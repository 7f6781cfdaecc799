import type { OsvAffected } from './osv-range.js';
import { packageOfOsv } from './purl.js';

/** The keys of the packages a record's affected entries name: what it is matched on. */
export function packageKeysOf(affected: readonly OsvAffected[]): string[] {
  const keys = new Set<string>();
  for (const entry of affected) {
    const pkg = entry.package && packageOfOsv(entry.package);
    if (pkg) keys.add(pkg.key);
  }
  return [...keys];
}
