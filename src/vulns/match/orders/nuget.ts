import { type VersionOrder, sign } from './order.js';

// NuGet's NuGetVersion (NuGet.Versioning) and its default VersionComparer, written here because no
// maintained JavaScript package implements NuGet's rules: one to four numeric parts (a missing part
// is 0, leading zeros allowed), SemVer 2.0 release labels compared case-insensitively, build
// metadata ignored. No leading "v": NuGet refuses it.

interface NuGetVersion {
  parts: [number, number, number, number];
  labels: string[] | null;
}

const INT_MAX = 2_147_483_647;
const LABEL = /^[0-9A-Za-z-]+$/;

/** A label or metadata part: not empty, [0-9A-Za-z-], and numeric labels without leading zeros. */
function validPart(part: string, allowLeadingZeros: boolean): boolean {
  if (!allowLeadingZeros && part.length > 1 && part[0] === '0' && /^\d+$/.test(part)) return false;
  return LABEL.test(part);
}

/** 1 to 4 dot-separated numbers, each at most int.MaxValue, whitespace allowed around each. */
function parseNumbers(text: string): [number, number, number, number] | null {
  const sections = text.split('.');
  if (sections.length > 4) return null;
  const parts: [number, number, number, number] = [0, 0, 0, 0];
  for (let i = 0; i < sections.length; i++) {
    const digits = /^\s*(\d+)\s*$/.exec(sections[i]!)?.[1];
    if (digits === undefined) return null;
    const value = Number(digits);
    if (value > INT_MAX) return null;
    parts[i] = value;
  }
  return parts;
}

function parse(value: string): NuGetVersion | null {
  const text = value.trim();
  if (text === '') return null;
  // the version runs to the first "-" or "+"; labels run from that "-" to the first "+" after it
  const cut = text.search(/[-+]/);
  const numbers = cut < 0 ? text : text.slice(0, cut);
  let labels: string[] | null = null;
  let metadata: string | null = null;
  if (cut >= 0) {
    const rest = text.slice(cut + 1);
    if (text[cut] === '+') metadata = rest;
    else {
      const plus = rest.indexOf('+');
      labels = (plus < 0 ? rest : rest.slice(0, plus)).split('.');
      if (plus >= 0) metadata = rest.slice(plus + 1);
    }
  }
  const parts = parseNumbers(numbers);
  if (parts === null) return null;
  if (labels?.some((label) => !validPart(label, false))) return null;
  if (metadata?.split('.').some((part) => !validPart(part, true))) return null;
  return { parts, labels };
}

/** A label is numeric when C#'s int.TryParse accepts it: an optional minus sign and an int. */
function numericLabel(label: string): number | null {
  if (!/^-?\d+$/.test(label)) return null;
  const n = Number(label);
  return n >= -INT_MAX - 1 && n <= INT_MAX ? n : null;
}

function compareLabel(a: string, b: string): number {
  const x = numericLabel(a);
  const y = numericLabel(b);
  if (x !== null && y !== null) return sign(x - y);
  if (x !== null) return -1;
  if (y !== null) return 1;
  // OrdinalIgnoreCase: both sides upper-cased, then compared by code unit
  const [p, q] = [a.toUpperCase(), b.toUpperCase()];
  return p < q ? -1 : p > q ? 1 : 0;
}

function compareLabels(a: string[], b: string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const r = compareLabel(a[i]!, b[i]!);
    if (r !== 0) return r;
  }
  return 0;
}

function compareVersions(a: NuGetVersion, b: NuGetVersion): number {
  for (let i = 0; i < 4; i++) {
    const r = sign(a.parts[i]! - b.parts[i]!);
    if (r !== 0) return r;
  }
  if (a.labels !== null && b.labels === null) return -1;
  if (a.labels === null && b.labels !== null) return 1;
  return a.labels !== null && b.labels !== null ? compareLabels(a.labels, b.labels) : 0;
}

/** NuGetVersion.TryParse and VersionComparer.Default. */
export const nugetOrder: VersionOrder = {
  valid: (v) => parse(v) !== null,
  compare: (a, b) => compareVersions(parse(a)!, parse(b)!),
};
