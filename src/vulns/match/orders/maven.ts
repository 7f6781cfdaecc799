import { type VersionOrder, compareCodeUnits, sign } from './order.js';

// Maven's ComparableVersion (org.apache.maven.artifact.versioning, Maven 4 line), written here
// because no maintained JavaScript package implements it. A version is a list of items: numbers,
// qualifiers, qualifier+number combinations ("sp1") and sub-lists opened by "-" or by a change
// between digits and letters. Any non-empty string Java can read is a Maven version.

type Item =
  | { kind: 'number'; value: bigint }
  | { kind: 'string'; value: string }
  | { kind: 'combination'; text: StringItem; number: Item }
  | { kind: 'list'; items: Item[] };
type StringItem = Extract<Item, { kind: 'string' }>;
type ListItem = Extract<Item, { kind: 'list' }>;

const QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const RELEASE_QUALIFIERS = new Set(['ga', 'final', 'release']);
const RELEASE_INDEX = String(QUALIFIERS.indexOf(''));

function stringItem(raw: string, followedByDigit: boolean): StringItem {
  let value = raw;
  if (followedByDigit && value.length === 1) {
    value = value === 'a' ? 'alpha' : value === 'b' ? 'beta' : value === 'm' ? 'milestone' : value;
  }
  return { kind: 'string', value: value === 'cr' ? 'rc' : value };
}

/** Known qualifiers by rank, unknown ones after all of them and lexically: compared as text. */
function qualifierRank(qualifier: string): string {
  if (RELEASE_QUALIFIERS.has(qualifier)) return RELEASE_INDEX;
  const i = QUALIFIERS.indexOf(qualifier);
  return i === -1 ? `${QUALIFIERS.length}-${qualifier}` : String(i);
}

const ZERO: Item = { kind: 'number', value: 0n };

function numberItem(digits: string): Item {
  return { kind: 'number', value: BigInt(digits === '' ? '0' : digits) };
}

function parseItem(isCombination: boolean, isDigit: boolean, text: string): Item {
  if (isCombination) {
    const joined = text.replaceAll('-', '');
    const at = joined.search(/\p{Nd}/u);
    const split = Math.max(at, 0);
    return { kind: 'combination', text: stringItem(joined.slice(0, split), true), number: numberItem(joined.slice(split)) };
  }
  return isDigit ? numberItem(text) : stringItem(text, false);
}

function isNull(item: Item): boolean {
  if (item.kind === 'number') return item.value === 0n;
  if (item.kind === 'string') return item.value === '';
  if (item.kind === 'list') return item.items.length === 0;
  return false;
}

/** Drops trailing zeros and empty qualifiers, and a zero before a qualifier ("1-0.alpha" keeps its 0). */
function normalise(list: ListItem): void {
  const items = list.items;
  for (let i = items.length - 1; i >= 0; i--) {
    if (!isNull(items[i]!)) continue;
    const next = items[i + 1];
    if (next === undefined || next.kind === 'string') items.splice(i, 1);
    else if (next.kind === 'list') {
      const first = next.items[0];
      if (first?.kind === 'combination' || first?.kind === 'string') items.splice(i, 1);
    }
  }
}

function parse(version: string): ListItem {
  const text = version.toLowerCase();
  const root: ListItem = { kind: 'list', items: [] };
  const lists: ListItem[] = [root];
  let list = root;
  const open = (): void => {
    const child: ListItem = { kind: 'list', items: [] };
    list.items.push(child);
    list = child;
    lists.push(child);
  };
  let isDigit = false;
  let isCombination = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.codePointAt(i)!;
    if (c > 0xffff) i++; // a character outside the BMP is one letter, as Java reads it
    if (c === 0x2e /* . */) {
      list.items.push(i === start ? ZERO : parseItem(isCombination, isDigit, text.slice(start, i)));
      isCombination = false;
      start = i + 1;
    } else if (c === 0x2d /* - */) {
      if (i === start) list.items.push(ZERO);
      else {
        // "x-1" reads as "x1": a qualifier joined to the number after it
        if (!isDigit && i !== text.length - 1 && /\p{Nd}/u.test(text[i + 1]!)) {
          isCombination = true;
          continue;
        }
        list.items.push(parseItem(isCombination, isDigit, text.slice(start, i)));
      }
      start = i + 1;
      if (list.items.length > 0) open();
      isCombination = false;
    } else if (c >= 0x30 && c <= 0x39) {
      if (!isDigit && i > start) {
        isCombination = true;
        if (list.items.length > 0) open();
      }
      isDigit = true;
    } else {
      if (isDigit && i > start) {
        list.items.push(parseItem(isCombination, true, text.slice(start, i)));
        start = i;
        open();
        isCombination = false;
      }
      isDigit = false;
    }
  }
  if (text.length > start) {
    // ".x" after a number reads as "-x", so 1.0.0.x1 sorts before 1.0.0-x2
    if (!isDigit && list.items.length > 0) open();
    list.items.push(parseItem(isCombination, isDigit, text.slice(start)));
  }
  for (let i = lists.length - 1; i >= 0; i--) normalise(lists[i]!);
  return root;
}

/** Compares an item with another, or with the absence of one (null), as ComparableVersion does. */
function compareItem(a: Item, b: Item | null): number {
  switch (a.kind) {
    case 'number':
      if (b === null) return a.value === 0n ? 0 : 1;
      return b.kind === 'number' ? sign(a.value - b.value) : 1;
    case 'string':
      if (b === null) return compareCodeUnits(qualifierRank(a.value), RELEASE_INDEX);
      if (b.kind === 'string') return compareCodeUnits(qualifierRank(a.value), qualifierRank(b.value));
      if (b.kind === 'combination') return compareItem(a, b.text) || -1;
      return -1;
    case 'combination':
      if (b === null) return compareItem(a.text, null);
      if (b.kind === 'string') return compareItem(a.text, b) || 1;
      if (b.kind === 'combination') return compareItem(a.text, b.text) || compareItem(a.number, b.number);
      return -1;
    case 'list':
      if (b === null) {
        for (const item of a.items) {
          const r = compareItem(item, null);
          if (r !== 0) return r;
        }
        return 0;
      }
      if (b.kind === 'number') return -1;
      if (b.kind !== 'list') return 1;
      for (let i = 0; i < Math.max(a.items.length, b.items.length); i++) {
        const l = a.items[i];
        const r = b.items[i] ?? null;
        const result = l === undefined ? (r === null ? 0 : -compareItem(r, null)) : compareItem(l, r);
        if (result !== 0) return result;
      }
      return 0;
  }
}

function parses(version: string): boolean {
  try {
    parse(version);
    return true;
  } catch {
    return false; // a number part Java's parser refuses, e.g. a digit run cut by a character outside the BMP
  }
}

/** Maven's ComparableVersion: any non-empty string it can read; case and leading zeros do not count. */
export const mavenOrder: VersionOrder = {
  valid: (v) => v.length > 0 && parses(v),
  compare: (a, b) => compareItem(parse(a), parse(b)),
};
