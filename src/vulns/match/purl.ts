import { PackageURL } from 'packageurl-js';
import { alpineEcosystem, debianEcosystem, ubuntuEcosystem } from './distro.js';
import { keyEcosystem, normaliseName, packageKey } from './package-key.js';

/** A component that can be matched: its OSV ecosystem, join key, normalised name and version. */
export interface MatchablePackage {
  ecosystem: string;
  key: string;
  name: string;
  /** The purl's version; packageOfPurl never gives null (a purl without one is `no_version`). */
  version: string | null;
}

/** Why a component cannot be matched (coverage counts each). */
export interface Unmatchable {
  unmatchable: 'no_purl' | 'invalid_purl' | 'ecosystem_not_covered' | 'no_version';
  /** The OSV ecosystem of a purl without a version (coverage asks whether any advisory of it is held). */
  ecosystem?: string;
}

/** The OSV ecosystem of each language purl type matched here. */
const TYPES: Record<string, string> = {
  npm: 'npm',
  pypi: 'PyPI',
  maven: 'Maven',
  golang: 'Go',
  cargo: 'crates.io',
  nuget: 'NuGet',
  gem: 'RubyGems',
  composer: 'Packagist',
  pub: 'Pub',
  hex: 'Hex',
};

/** Distribution vendors (the purl namespace of deb and apk), each with its release reader. */
const DISTROS: Record<string, { type: string; base: string; release: (distro: string) => string | null }> = {
  debian: { type: 'deb', base: 'Debian', release: debianEcosystem },
  ubuntu: { type: 'deb', base: 'Ubuntu', release: ubuntuEcosystem },
  alpine: { type: 'apk', base: 'Alpine', release: alpineEcosystem },
};

interface Identity {
  base: string;
  ecosystem: string | null; // null for a distribution package whose release the purl does not say
  name: string;
}

/** The package a parsed purl names, or null when its type (or vendor) is not matched here. */
function identify(purl: PackageURL): Identity | null {
  const ns = purl.namespace ?? '';
  if (purl.type === 'deb' || purl.type === 'apk') {
    const distro = Object.hasOwn(DISTROS, ns.toLowerCase()) ? DISTROS[ns.toLowerCase()]! : null;
    if (distro === null || distro.type !== purl.type) return null;
    const qualifier = purl.qualifiers?.distro;
    // the binary package's own name, as osv-scanner matches an SBOM's distribution packages
    return { base: distro.base, ecosystem: qualifier === undefined ? null : distro.release(qualifier), name: purl.name };
  }
  const base = Object.hasOwn(TYPES, purl.type) ? TYPES[purl.type]! : null;
  if (base === null) return null;
  // Maven names are group:artifact; every other type joins namespace and name with "/"
  const name = ns === '' ? purl.name : `${ns}${base === 'Maven' ? ':' : '/'}${purl.name}`;
  return { base, ecosystem: base, name };
}

function parse(purl: string): PackageURL | null {
  try {
    return PackageURL.fromString(purl);
  } catch {
    return null;
  }
}

/** The matchable package a component's purl names, or why it has none. */
export function packageOfPurl(purl: string | null | undefined): MatchablePackage | Unmatchable {
  if (purl === null || purl === undefined || purl.trim() === '') return { unmatchable: 'no_purl' };
  const parsed = parse(purl.trim());
  if (parsed === null) return { unmatchable: 'invalid_purl' };
  const id = identify(parsed);
  if (id === null || id.ecosystem === null) return { unmatchable: 'ecosystem_not_covered' };
  let version = parsed.version ?? '';
  if (version === '') return { unmatchable: 'no_version', ecosystem: id.ecosystem };
  // Debian's epoch may come as a qualifier instead of inside the version
  const epoch = parsed.qualifiers?.epoch;
  if (parsed.type === 'deb' && epoch !== undefined && !version.includes(':')) version = `${epoch}:${version}`;
  return { ecosystem: id.ecosystem, key: packageKey(id.ecosystem, id.name), name: normaliseName(id.base, id.name), version };
}

/**
 * The ecosystem and join key of an OSV `affected[].package`: from its purl when that names a
 * package matched here with its release, else from ecosystem and name (a distribution's purl in
 * OSV leaves the release to the ecosystem, "Debian:11"). Null when nothing here can join it.
 */
export function packageOfOsv(pkg: { ecosystem: string; name: string; purl?: string }): { ecosystem: string; key: string } | null {
  const parsed = pkg.purl ? parse(pkg.purl) : null;
  const id = parsed ? identify(parsed) : null;
  if (id?.ecosystem) return { ecosystem: id.ecosystem, key: packageKey(id.ecosystem, id.name) };
  const recorded = keyEcosystem(pkg.ecosystem);
  return recorded === null ? null : { ecosystem: recorded, key: packageKey(recorded, pkg.name) };
}
