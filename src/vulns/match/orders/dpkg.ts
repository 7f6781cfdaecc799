import { type VersionOrder, sign } from './order.js';

// dpkg's version order (deb-version(5): [epoch:]upstream[-revision]), written here because no
// maintained JavaScript package implements it. Debian and Ubuntu use it.

interface DebVersion {
  epoch: number;
  upstream: string;
  revision: string;
}

const INT_MAX = 2_147_483_647;

/** Splits like dpkg's parseversion; null for what it reports as an error or a warning. */
function parse(input: string): DebVersion | null {
  const text = input.replace(/^[ \t]+|[ \t]+$/g, '');
  if (text === '' || /[ \t]/.test(text)) return null;
  let epoch = 0;
  let rest = text;
  const colon = text.indexOf(':');
  if (colon >= 0) {
    // strtol: an optional sign, then digits that must run exactly to the colon
    const digits = text.slice(0, colon);
    if (!/^[+-]?\d+$/.test(digits)) return null;
    const value = Number(digits);
    if (value < 0 || value > INT_MAX) return null;
    epoch = value;
    rest = text.slice(colon + 1);
    if (rest === '') return null;
  }
  const hyphen = rest.lastIndexOf('-');
  const upstream = hyphen < 0 ? rest : rest.slice(0, hyphen);
  const revision = hyphen < 0 ? '' : rest.slice(hyphen + 1);
  if (hyphen >= 0 && revision === '') return null;
  if (!/^[0-9][0-9A-Za-z.+~:-]*$/.test(upstream)) return null;
  if (!/^[0-9A-Za-z.+~]*$/.test(revision)) return null;
  return { epoch, upstream, revision };
}

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isAlpha = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

/** The weight of a non-digit: the end and digits 0, "~" below everything, letters before other marks. */
function weight(c: string): number {
  if (c === '' || isDigit(c)) return 0;
  if (isAlpha(c)) return c.charCodeAt(0);
  if (c === '~') return -1;
  return c.charCodeAt(0) + 256;
}

/** dpkg's verrevcmp: alternating runs of non-digits (by weight) and digits (by value). */
function compareParts(a: string, b: string): number {
  let i = 0;
  let j = 0;
  const at = (s: string, k: number): string => s[k] ?? '';
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a[i]!)) || (j < b.length && !isDigit(b[j]!))) {
      const d = weight(at(a, i)) - weight(at(b, j));
      if (d !== 0) return sign(d);
      i++;
      j++;
    }
    while (at(a, i) === '0') i++;
    while (at(b, j) === '0') j++;
    let firstDiff = 0;
    while (isDigit(at(a, i)) && isDigit(at(b, j))) {
      if (firstDiff === 0) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (isDigit(at(a, i))) return 1;
    if (isDigit(at(b, j))) return -1;
    if (firstDiff !== 0) return sign(firstDiff);
  }
  return 0;
}

function split(version: string): DebVersion {
  const parsed = parse(version);
  if (parsed === null) throw new Error(`not a Debian version: ${version}`);
  return parsed;
}

/** dpkg: parseversion for validity, dpkg_version_compare for the order. */
export const dpkgOrder: VersionOrder = {
  valid: (v) => parse(v) !== null,
  compare: (left, right) => {
    const [a, b] = [split(left), split(right)];
    return sign(a.epoch - b.epoch) || compareParts(a.upstream, b.upstream) || compareParts(a.revision, b.revision);
  },
};
