import { type VersionOrder, compareCodeUnits, sign } from './order.js';

// Dart's pub_semver Version, written here because npm's `semver` differs from it where pub.dev
// packages live: pub sorts build metadata (1.0.0 < 1.0.0+1 < 1.0.0+2, how many packages number
// their patches) and accepts leading zeros (01.2.3 is 1.2.3). No maintained JavaScript package
// implements pub's order.

const VERSION = /^(\d+)\.(\d+)\.(\d+)(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;
const INT64_MAX = 2n ** 63n - 1n;

type Part = bigint | string;

interface PubVersion {
  numbers: [bigint, bigint, bigint];
  pre: Part[];
  build: Part[];
}

/** Dart's int.tryParse: decimal or 0x-hex, an optional minus sign, within 64 bits. */
function dartInt(text: string): bigint | null {
  const m = /^(-?)(?:0[xX]([0-9a-fA-F]+)|(\d+))$/.exec(text);
  if (!m) return null;
  const magnitude = m[2] !== undefined ? BigInt(`0x${m[2]}`) : BigInt(m[3]!);
  const value = m[1] === '-' ? -magnitude : magnitude;
  return value > INT64_MAX || value < -INT64_MAX - 1n ? null : value;
}

/** A dotted list as numbers where int.tryParse reads them, text elsewhere. */
function parts(text: string | undefined): Part[] {
  return text === undefined ? [] : text.split('.').map((p) => dartInt(p) ?? p);
}

function parse(text: string): PubVersion | null {
  const m = VERSION.exec(text);
  if (!m) return null;
  const numbers = [m[1], m[2], m[3]].map((n) => BigInt(n!)) as [bigint, bigint, bigint];
  if (numbers.some((n) => n > INT64_MAX)) return null;
  return { numbers, pre: parts(m[5]), build: parts(m[8]) };
}

/** Part by part: a missing part first, numbers before text, numbers by value, text by code unit. */
function compareParts(a: Part[], b: Part[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'bigint') return typeof y === 'bigint' ? sign(x - y) : -1;
    if (typeof y === 'bigint') return 1;
    return compareCodeUnits(x, y);
  }
  return 0;
}

function compareVersions(a: PubVersion, b: PubVersion): number {
  for (let i = 0; i < 3; i++) {
    const r = sign(a.numbers[i]! - b.numbers[i]!);
    if (r !== 0) return r;
  }
  // a prerelease comes before the release; a build after it (no parts come first, as missing ones do)
  if (a.pre.length === 0 && b.pre.length > 0) return 1;
  if (b.pre.length === 0 && a.pre.length > 0) return -1;
  return compareParts(a.pre, b.pre) || compareParts(a.build, b.build);
}

/** pub_semver: Version.parse for validity, Version.compareTo for the order. */
export const pubOrder: VersionOrder = {
  valid: (v) => parse(v) !== null,
  compare: (a, b) => compareVersions(parse(a)!, parse(b)!),
};
