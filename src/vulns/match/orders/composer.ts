import type { VersionOrder } from './order.js';
import { phpVersionCompare } from './php-version-compare.js';

// Composer's order (composer/semver): VersionParser::normalize, then PHP's version_compare on the
// normalised strings, as Semver::sort does. Written here because no maintained JavaScript package
// implements either. Branches ("dev-main") have no place in the order: they are not versions here.

// PHP's possessive quantifiers (\d{1,5}+, \d++) never give back what they took; with these anchored
// patterns plain greedy ones accept the same strings, so JavaScript's regexes stand in for them.
const MODIFIER = '[._-]?(?:(stable|beta|b|RC|alpha|a|patch|pl|p)((?:[.-]?\\d+)*)?)?([.-]?dev)?';
const CLASSICAL = new RegExp(`^v?(\\d{1,5})(\\.\\d+)?(\\.\\d+)?(\\.\\d+)?${MODIFIER}$`, 'i');
const DATE = new RegExp(`^v?(\\d{4}(?:[.:-]?\\d{2}){1,6}(?:[.:-]?\\d{1,3}){0,2})${MODIFIER}$`, 'i');

function expandStability(stability: string): string {
  const s = stability.toLowerCase();
  if (s === 'a') return 'alpha';
  if (s === 'b') return 'beta';
  if (s === 'p' || s === 'pl') return 'patch';
  if (s === 'rc') return 'RC';
  return s;
}

/** A numeric branch ("1.x", "2.1.*") as its 9999999 stand-in, or null for a named branch. */
function normaliseBranch(name: string): string | null {
  const m = /^v?(\d+)(\.(?:\d+|[xX*]))?(\.(?:\d+|[xX*]))?(\.(?:\d+|[xX*]))?$/i.exec(name.trim());
  if (!m) return null;
  const parts = [m[1], m[2] ?? '.x', m[3] ?? '.x', m[4] ?? '.x'].map((p) => p!.replace(/[*X]/g, 'x'));
  return `${parts.join('').replaceAll('x', '9999999')}-dev`;
}

/** VersionParser::normalize, or null where it throws; branch names come back as "dev-…". */
export function normaliseComposerVersion(input: string): string | null {
  let version = input.trim();
  const alias = /^([^,\s]+) +as +([^,\s]+)$/.exec(version);
  if (alias) version = alias[1]!;
  const flag = /@(?:stable|RC|beta|alpha|dev)$/i.exec(version);
  if (flag) version = version.slice(0, version.length - flag[0].length);
  if (['master', 'trunk', 'default'].includes(version)) version = `dev-${version}`;
  if (version.toLowerCase().startsWith('dev-')) return `dev-${version.slice(4)}`;
  const metadata = /^([^,\s+]+)\+[^\s]+$/.exec(version);
  if (metadata) version = metadata[1]!;

  let matches = CLASSICAL.exec(version);
  let index: number;
  if (matches) {
    version = matches[1]! + (matches[2] || '.0') + (matches[3] || '.0') + (matches[4] || '.0');
    index = 5;
  } else {
    matches = DATE.exec(version);
    if (!matches) {
      const branch = /^(.*?)[.-]?dev$/i.exec(version);
      return branch ? normaliseBranch(branch[1]!) : null;
    }
    version = matches[1]!.replace(/\D/g, '.');
    index = 2;
  }
  const stability = matches[index];
  if (stability) {
    if (stability === 'stable') return version;
    version += `-${expandStability(stability)}${(matches[index + 1] ?? '').replace(/^[.-]+/, '')}`;
  }
  if (matches[index + 2]) version += '-dev';
  return version;
}

/** A normalised version that is not a branch, or null. */
function orderable(version: string): string | null {
  const normal = normaliseComposerVersion(version);
  return normal === null || normal.startsWith('dev-') ? null : normal;
}

/** Composer: VersionParser::normalize for validity (branches excluded), version_compare for the order. */
export const composerOrder: VersionOrder = {
  valid: (v) => orderable(v) !== null,
  compare: (a, b) => phpVersionCompare(orderable(a)!, orderable(b)!),
};
