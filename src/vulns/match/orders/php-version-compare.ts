import { sign } from './order.js';

// PHP's version_compare (ext/standard/versioning.c), which Composer applies to the versions its
// VersionParser has normalised. Written here because no maintained JavaScript package implements it.

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isAlnum = (c: string): boolean => /^[0-9A-Za-z]$/.test(c);

/** "1.0rc1" → "1.0.rc.1": "-", "_", "+" and other marks become ".", and a dot goes between digits and letters. */
function canonicalise(version: string): string {
  let out = version[0] ?? '';
  let previous = out;
  for (const c of version.slice(1)) {
    const last = out[out.length - 1];
    if (c === '-' || c === '_' || c === '+') {
      if (last !== '.') out += '.';
    } else if ((!isDigit(previous) && previous !== '.' && isDigit(c)) || (isDigit(previous) && c !== '.' && !isDigit(c))) {
      if (last !== '.') out += '.';
      out += c;
    } else if (!isAlnum(c)) {
      if (last !== '.') out += '.';
    } else out += c;
    previous = c;
  }
  return out;
}

/**
 * Ranks of the words PHP knows, matched by prefix ("a" stands for "alpha", "b" for "beta", "p" for
 * "pl" and "patch", as in PHP's longer table), case-sensitively; any other word ranks below all.
 */
const SPECIAL_FORMS: [string, number][] = [
  ['dev', 0],
  ['a', 1],
  ['b', 2],
  ['RC', 3],
  ['rc', 3],
  ['#', 4],
  ['p', 5],
];

function formRank(form: string): number {
  for (const [name, rank] of SPECIAL_FORMS) if (form.startsWith(name)) return rank;
  return -1;
}

// strtol saturates at LONG_MAX on 64-bit platforms
const LONG_MAX = 2n ** 63n - 1n;
const number = (part: string): bigint => {
  const n = BigInt(/^\d*/.exec(part)![0] || '0');
  return n > LONG_MAX ? LONG_MAX : n;
};

function comparePart(p: string, q: string): number {
  if (isDigit(p[0]) && isDigit(q[0])) return sign(number(p) - number(q));
  return sign(formRank(isDigit(p[0]) ? '#N#' : p) - formRank(isDigit(q[0]) ? '#N#' : q));
}

/** php_version_compare: -1, 0 or 1. */
export function phpVersionCompare(left: string, right: string): number {
  if (left === '' || right === '') return left === right ? 0 : left === '' ? -1 : 1;
  const a = (left[0] === '#' ? left : canonicalise(left)).split('.');
  const b = (right[0] === '#' ? right : canonicalise(right)).split('.');
  const rest = (parts: string[], from: number): string => parts.slice(from).join('.');
  // Part by part, as the C loop over '.' does; where one side runs out (or ends in a bare '.'),
  // a number left on the other side makes it greater, and a word left is compared with "#N#".
  for (let i = 0; ; i++) {
    if (rest(a, i) === '' || rest(b, i) === '') return isDigit(a[i]![0]) ? 1 : phpVersionCompare(rest(a, i), '#N#');
    const compare = comparePart(a[i]!, b[i]!);
    if (compare !== 0) return compare;
    const [lastA, lastB] = [i === a.length - 1, i === b.length - 1];
    if (lastA && lastB) return 0;
    if (lastA) return isDigit(b[i + 1]![0]) ? -1 : phpVersionCompare('#N#', rest(b, i + 1));
    if (lastB) return isDigit(a[i + 1]![0]) ? 1 : phpVersionCompare(rest(a, i + 1), '#N#');
  }
}
