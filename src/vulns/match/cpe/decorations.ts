import { readUpstream } from './upstream-version.js';

// The build's decorations on a component's version, stripped before the upstream order reads it
// and recorded for the evidence (firmware.md, Readings, "Order details"). Only ever applied to a
// component's version: a criterion's version is the NVD's and is read whole.

/** A component version with its decorations taken off. */
export interface ComponentVersion {
  /** The version as the SBOM or CPE gave it. */
  original: string;
  /** What the order reads, a bare `-N` packaging revision excepted (see `bareRevision`). */
  upstream: string;
  /** The decorations taken off, in the order they were: `7:`, `-1~deb12u1`, `+gitAUTOINC+4a5b`… */
  stripped: string[];
  /** A trailing `-N` (OpenWrt's `1.36.1-1`): dropped unless the criterion's version carries a `-`. */
  bareRevision: string | null;
}

const PRE_RELEASE_AFTER_TILDE = /^~(dev|alpha|beta|test|pre|rc)\d*/i;
const DEBIAN_MARKER = /deb\d|ubuntu|[+.~]dfsg/i;

export function readComponentVersion(original: string): ComponentVersion {
  let v = original.trim();
  const stripped: string[] = [];
  const take = (pattern: RegExp): boolean => {
    const m = pattern.exec(v);
    if (m === null) return false;
    stripped.push(m[0]);
    v = v.slice(0, m.index) + v.slice(m.index + m[0].length);
    return true;
  };
  take(/^v(?=\d)/i); // a git tag's "v" (v2023.10)
  const epoch = take(/^\d+:/);
  take(/-r\d+$/); // Yocto's package revision, PR
  // a Debian or Ubuntu revision: the part after the last "-", when the version has an epoch or a
  // distribution's marker (without one, a trailing -N is a bare revision, below)
  if (epoch || DEBIAN_MARKER.test(v)) {
    const dash = v.lastIndexOf('-');
    if (dash > 0) {
      stripped.push(v.slice(dash));
      v = v.slice(0, dash);
    }
  }
  take(/\+git.*$/i);
  take(/[+.~]dfsg.*$/i);
  // `~` sorts before in Debian: `1.0~rc1` is a pre-release of 1.0, read as `1.0-rc1`, not dropped
  const tilde = v.indexOf('~');
  if (tilde >= 0) {
    if (PRE_RELEASE_AFTER_TILDE.test(v.slice(tilde))) v = `${v.slice(0, tilde)}-${v.slice(tilde + 1)}`;
    else take(/~.*$/);
  }
  let bareRevision: string | null = null;
  const bare = /-\d+$/.exec(v);
  if (bare !== null && bare.index > 0 && readUpstream(v.slice(0, bare.index)) !== null) {
    bareRevision = bare[0];
    v = v.slice(0, bare.index);
  }
  return { original, upstream: v, stripped, bareRevision };
}

/**
 * The string to compare with a criterion's version, and the decorations it leaves off: a bare
 * `-N` is kept only when the criterion's own version carries a `-` (the NVD's `avahi:0.8-5`),
 * then both compare whole, `-N` as one more segment.
 */
export function versionAgainst(component: ComponentVersion, criterionVersion: string): { compared: string; stripped: string[] } {
  if (component.bareRevision === null) return { compared: component.upstream, stripped: component.stripped };
  if (criterionVersion.includes('-')) return { compared: component.upstream + component.bareRevision, stripped: component.stripped };
  return { compared: component.upstream, stripped: [...component.stripped, component.bareRevision] };
}
