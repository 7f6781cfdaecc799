// One version order for the upstream C projects of firmware (openssl, busybox, linux, curl,
// dnsmasq, dropbear, u-boot, openssh, zlib…), as firmware.md's "One version order" and "Order
// details" set it; written here because none of the ecosystems' orders reads all of them
// (OpenSSL's letters are pre-releases to SemVer and to PEP 440, `p1` a post-release to no one).
//
// A version is a release, then qualifiers:
//   release    digits, then more digit runs after `.`, `-` or `_`, then at most one run of letters
//              glued to the last digits (OpenSSL's 1.0.2za): `1.0.2za`, `2022.83`, `0.8-5`
//   qualifier  an optional separator, a known word and its optional number: `-rc4`, `test1`, `p1`
// Numeric runs compare as numbers, missing ones are zero (6.1 = 6.1.0). Letters compare as text,
// none before any (1.0.2 < 1.0.2a < 1.0.2z < 1.0.2za). Qualifiers compare in turn, a missing one
// as the release itself: dev < test < alpha < beta < pre < rc < (release) < p = pl, then by their
// numbers (`test` comes first as its two users release them: dnsmasq's 2.86test7 before 2.86rc1,
// OpenSSH's 2.0.0test1 before 2.0.0beta1). Anything else (an unknown word, letters followed by digits, `+`, `~`) cannot be read:
// such a version compares as `unknown`, and nothing is guessed from it.

/** Pre-release words, lowest first, then the release itself, then the patch levels. */
const RANKS: Record<string, number> = { dev: 0, test: 1, alpha: 2, beta: 3, pre: 4, rc: 5, p: 7, pl: 7 };
const RELEASE = 6;
/** Patch-level words need their number: a lone `p` after digits is OpenSSL's letter p (1.0.2p). */
const NEEDS_NUMBER = new Set(['p', 'pl']);

export interface Qualifier {
  rank: number;
  number: string;
}

/** A version as the order reads it. */
export interface UpstreamVersion {
  numbers: string[];
  letters: string;
  qualifiers: Qualifier[];
}

export type Order = -1 | 0 | 1 | 'unknown';

const TOKEN = /(\d+)|([a-z]+)|([._-])/y;

function tokens(text: string): string[] | null {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const m = TOKEN.exec(text);
    if (m === null) return null;
    out.push(m[0]);
  }
  return out;
}

const isDigits = (t: string | undefined): t is string => t !== undefined && /^\d/.test(t);
const isWord = (t: string | undefined): t is string => t !== undefined && /^[a-z]/.test(t);
const isSeparator = (t: string | undefined): boolean => t === '.' || t === '-' || t === '_';
const trimZeros = (digits: string): string => digits.replace(/^0+(?=\d)/, '');

/** Reads a version under the order, or null when it cannot. */
export function readUpstream(version: string): UpstreamVersion | null {
  const ts = tokens(version.toLowerCase());
  if (ts === null || !isDigits(ts[0])) return null;
  const read: UpstreamVersion = { numbers: [trimZeros(ts[0])], letters: '', qualifiers: [] };
  let i = 1;
  // the release: digit runs, then letters glued to the last one unless they start a qualifier
  while (i < ts.length) {
    if (isSeparator(ts[i]) && isDigits(ts[i + 1])) {
      read.numbers.push(trimZeros(ts[i + 1]!));
      i += 2;
    } else if (isWord(ts[i]) && !startsQualifier(ts, i)) {
      if (isDigits(ts[i + 1])) return null; // letters then digits, unknown to the order
      read.letters = ts[i]!;
      i += 1;
      break;
    } else break;
  }
  // the qualifiers
  while (i < ts.length) {
    const at = isSeparator(ts[i]) ? i + 1 : i;
    if (!startsQualifier(ts, at)) return null;
    const word = ts[at]!;
    let number = '0';
    let next = at + 1;
    if (isDigits(ts[next])) number = trimZeros(ts[next++]!);
    else if (ts[next] === '.' && isDigits(ts[next + 1])) {
      number = trimZeros(ts[next + 1]!);
      next += 2;
    }
    read.qualifiers.push({ rank: RANKS[word]!, number });
    i = next;
  }
  return read;
}

function startsQualifier(ts: string[], i: number): boolean {
  const word = ts[i];
  if (!isWord(word) || !Object.hasOwn(RANKS, word)) return false;
  return !NEEDS_NUMBER.has(word) || isDigits(ts[i + 1]) || (ts[i + 1] === '.' && isDigits(ts[i + 2]));
}

function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two versions already read. */
export function compareRead(a: UpstreamVersion, b: UpstreamVersion): -1 | 0 | 1 {
  for (let i = 0; i < Math.max(a.numbers.length, b.numbers.length); i++) {
    const r = compareDigits(a.numbers[i] ?? '0', b.numbers[i] ?? '0');
    if (r !== 0) return r as -1 | 1;
  }
  if (a.letters !== b.letters) return a.letters < b.letters ? -1 : 1;
  const release: Qualifier = { rank: RELEASE, number: '0' };
  for (let i = 0; i < Math.max(a.qualifiers.length, b.qualifiers.length); i++) {
    const [qa, qb] = [a.qualifiers[i] ?? release, b.qualifiers[i] ?? release];
    if (qa.rank !== qb.rank) return qa.rank < qb.rank ? -1 : 1;
    const r = compareDigits(qa.number, qb.number);
    if (r !== 0) return r as -1 | 1;
  }
  return 0;
}

/** Negative, zero or positive as a sorts before, with or after b; `unknown` when either cannot be read. */
export function compareUpstream(a: string, b: string): Order {
  const [ra, rb] = [readUpstream(a), readUpstream(b)];
  return ra === null || rb === null ? 'unknown' : compareRead(ra, rb);
}

/** The release without its qualifiers: `9.3` of `9.3p1`, `2.6.39` of `2.6.39-rc1`, `1.0.2a` of itself. */
export function releaseOf(version: UpstreamVersion): UpstreamVersion {
  return { ...version, qualifiers: [] };
}

/**
 * A CPE's version and update read together (firmware.md, Readings: `9.3` + `p1` is `9.3p1`,
 * `1.0.2` + `beta2` sorts before `1.0.2`). The update is joined with `-`, which the order reads
 * as a separator, so `9.3-p1` and `9.3p1` are the same version.
 */
export function withUpdate(version: string, update: string | null): string {
  return update === null || update === '' ? version : `${version}-${update}`;
}
