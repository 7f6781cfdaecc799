import semver from 'semver';
import { type VersionOrder, sign } from './order.js';

/**
 * SemVer 2.0 precedence (build metadata ignored) as npm's own `semver` implements it: npm, crates.io
 * and Hex, and the OSV `SEMVER` range type. `semver` accepts one leading `v`, which is how Go writes
 * every module version (`v1.2.3`, `v0.0.0-20210101000000-abcdef123456`, `v2.0.0+incompatible`)
 * while Go's OSV records leave it out: both spellings are one version.
 */
export const semverOrder: VersionOrder = {
  valid: (v) => semver.valid(v) !== null,
  compare: (a, b) => sign(semver.compare(a, b)),
};
