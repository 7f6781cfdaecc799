// The package key components and advisories join on: "<OSV ecosystem>/<normalised name>", the
// same string from a component's purl and from an OSV record's package. Names are normalised as
// the purl specification says for each type, and the OSV side gets the same treatment.

/** The base OSV ecosystems matched here ("Debian" stands for every "Debian:N"). */
export const COVERED_ECOSYSTEMS = [
  'npm',
  'PyPI',
  'Maven',
  'Go',
  'crates.io',
  'NuGet',
  'RubyGems',
  'Packagist',
  'Pub',
  'Hex',
  'Debian',
  'Ubuntu',
  'Alpine',
] as const;

/** Distributions whose advisories are scoped to one release ("Debian:11"): a key needs the release. */
const RELEASE_SCOPED = new Set(['Debian', 'Ubuntu', 'Alpine']);

/** The name as the purl spec normalises it for the ecosystem's purl type. */
export function normaliseName(base: string, name: string): string {
  switch (base) {
    case 'PyPI':
      return name.toLowerCase().replace(/[-_.]+/g, '-');
    case 'Pub':
      return name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
    case 'npm':
    case 'NuGet':
    case 'Packagist':
    case 'Hex':
    case 'Debian':
    case 'Ubuntu':
    case 'Alpine':
      return name.toLowerCase();
    default:
      // Maven, Go, crates.io, RubyGems: case-sensitive (Go module paths differ by case alone)
      return name;
  }
}

/** The ecosystem as keys write it: Maven's and Packagist's repository suffix dropped, as osv-scanner ignores it. */
export function keyEcosystem(ecosystem: string): string | null {
  const base = ecosystem.split(':', 1)[0]!;
  if (!(COVERED_ECOSYSTEMS as readonly string[]).includes(base)) return null;
  if (RELEASE_SCOPED.has(base)) return ecosystem === base ? null : ecosystem;
  return base;
}

/** The join key of a package. */
export function packageKey(ecosystem: string, name: string): string {
  return `${ecosystem}/${normaliseName(ecosystem.split(':', 1)[0]!, name)}`;
}
