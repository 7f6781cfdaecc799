import { type VersionOrder, compareCodeUnits, sign } from './order.js';

// RubyGems' Gem::Version, written here because no maintained JavaScript package implements it. A
// version is a list of numbers and letter runs; a letter run makes it a prerelease and sorts before
// any number; "-" is read as ".pre."; trailing zeros do not count.

// Ruby's \s: space, tab, line feed, vertical tab, form feed, carriage return
const WS = '[ \\t\\n\\v\\f\\r]';
const VERSION = new RegExp(`^${WS}*([0-9]+(?:\\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?)?${WS}*$`);

type Segment = bigint | string;

/** The version string Gem::Version keeps: stripped, "" as "0", and "-" spelled ".pre.". */
function normalised(version: string): string {
  const text = version.replace(new RegExp(`^${WS}+|${WS}+$`, 'g'), '');
  return text === '' ? '0' : text.replaceAll('-', '.pre.');
}

function segments(version: string): Segment[] {
  return (version.match(/\d+|[a-z]+/gi) ?? []).map((s) => (/^\d/.test(s) ? BigInt(s) : s));
}

/** Segments without the zeros that do not change the order ("1.0.0" is [1]; "1.0.a.1" is [1, "a", 1]). */
function canonicalSegments(version: string): Segment[] {
  let text = version.replace(/(?<=[a-zA-Z.])[.0]+$/, '');
  if (/[a-zA-Z]/.test(version)) text = text.replace(/(?<=\.|^)[0.]+(?=[a-zA-Z])/, '');
  return segments(text);
}

function compareVersions(left: string, right: string): number {
  const [a, b] = [normalised(left), normalised(right)];
  if (a === b) return 0;
  const [l, r] = [canonicalSegments(a), canonicalSegments(b)];
  const limit = Math.min(l.length, r.length);
  let i = 0;
  for (; i < limit; i++) {
    const [x, y] = [l[i]!, r[i]!];
    if (x === y) continue;
    if (typeof x === 'string' && typeof y !== 'string') return -1;
    if (typeof x !== 'string' && typeof y === 'string') return 1;
    return typeof x === 'string' ? compareCodeUnits(x, y as string) : sign(x - (y as bigint));
  }
  // the longer one decides by its first segment that is not zero: a letter run makes it smaller
  for (const [rest, direction] of [
    [l, 1],
    [r, -1],
  ] as const) {
    for (let j = i; j < rest.length; j++) {
      const s = rest[j]!;
      if (typeof s === 'string') return -direction;
      if (s !== 0n) return direction;
    }
  }
  return 0;
}

/** Gem::Version: `correct?` for validity and `<=>` for the order. */
export const rubyGemsOrder: VersionOrder = {
  valid: (v) => VERSION.test(v),
  compare: compareVersions,
};
