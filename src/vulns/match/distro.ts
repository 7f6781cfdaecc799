// The OSV ecosystem of a Linux distribution package, from the `distro` qualifier of its purl in
// the forms SBOM tools write it: syft "debian-11" / "alpine-3.17.2" / "ubuntu-22.04", Trivy
// "debian-11.6" / "3.17.2", the purl spec's examples "bullseye" / "jessie". Only a form that names
// one release exactly is read; anything else (sid, edge, an unknown vendor) is left uncovered.

/** Debian releases with a one-number version (distro-info-data's debian.csv): wheezy (7) on. */
const DEBIAN_CODENAMES: Record<string, number> = {
  wheezy: 7,
  jessie: 8,
  stretch: 9,
  buster: 10,
  bullseye: 11,
  bookworm: 12,
  trixie: 13,
  forky: 14,
  duke: 15,
};

/** Ubuntu codenames and their YY.MM versions (distro-info-data's ubuntu.csv), precise (12.04) on. */
const UBUNTU_CODENAMES: Record<string, string> = {
  precise: '12.04',
  quantal: '12.10',
  raring: '13.04',
  saucy: '13.10',
  trusty: '14.04',
  utopic: '14.10',
  vivid: '15.04',
  wily: '15.10',
  xenial: '16.04',
  yakkety: '16.10',
  zesty: '17.04',
  artful: '17.10',
  bionic: '18.04',
  cosmic: '18.10',
  disco: '19.04',
  eoan: '19.10',
  focal: '20.04',
  groovy: '20.10',
  hirsute: '21.04',
  impish: '21.10',
  jammy: '22.04',
  kinetic: '22.10',
  lunar: '23.04',
  mantic: '23.10',
  noble: '24.04',
  oracular: '24.10',
  plucky: '25.04',
  questing: '25.10',
  resolute: '26.04',
};

/** "debian-11", "debian-11.6", "11", "bullseye", "debian-bullseye" → "Debian:11". */
export function debianEcosystem(distro: string): string | null {
  const d = distro
    .trim()
    .toLowerCase()
    .replace(/^debian[-:_]?/, '');
  const numeric = /^(\d+)(?:\.\d+)*$/.exec(d);
  if (numeric) {
    const major = Number(numeric[1]);
    // before wheezy Debian versions were "6.0", "5.0"… with point releases under them
    return major >= DEBIAN_CODENAMES.wheezy! ? `Debian:${major}` : null;
  }
  return Object.hasOwn(DEBIAN_CODENAMES, d) ? `Debian:${DEBIAN_CODENAMES[d]}` : null;
}

/** "ubuntu-22.04", "22.04.3", "jammy" → "Ubuntu:22.04:LTS"; "ubuntu-23.10" → "Ubuntu:23.10". */
export function ubuntuEcosystem(distro: string): string | null {
  const d = distro
    .trim()
    .toLowerCase()
    .replace(/^ubuntu[-:_]?/, '');
  const version = Object.hasOwn(UBUNTU_CODENAMES, d) ? UBUNTU_CODENAMES[d]! : /^(\d{1,2}\.\d{2})(?:\.\d+)?$/.exec(d)?.[1];
  if (version === undefined) return null;
  const [yy, mm] = version.split('.').map(Number) as [number, number];
  if (mm !== 4 && mm !== 10 && !(yy === 6 && mm === 6)) return null;
  const padded = `${yy}.${String(mm).padStart(2, '0')}`;
  // LTS: every April release of an even year since 8.04, and 6.06
  const lts = (mm === 4 && yy % 2 === 0 && yy >= 8) || (yy === 6 && mm === 6);
  return lts ? `Ubuntu:${padded}:LTS` : `Ubuntu:${padded}`;
}

/** "alpine-3.17", "alpine-3.17.2", "3.17.2", "v3.17" → "Alpine:v3.17". */
export function alpineEcosystem(distro: string): string | null {
  const m = /^(?:alpine[-:_]?)?v?(\d+)\.(\d+)(?:\.\d+)*$/.exec(distro.trim().toLowerCase());
  return m ? `Alpine:v${Number(m[1])}.${Number(m[2])}` : null;
}
