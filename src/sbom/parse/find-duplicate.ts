import { CanonicalText } from './canonical-text.js';
import { StructuralHash } from './structural-hash.js';

// The check behind the UNIQUE_KEYWORD of the compiled schemas (unique-items.ts), in one pass:
// each item is hashed (key order ignored, as ajv's deep equality does) and only items whose
// hashes collide are compared, by their canonical JSON text. Small arrays (most of them: a
// component's licences and hashes) are compared pairwise, which allocates nothing; objects
// that differ at one string member (components by their bom-ref) need no hashing at all.

/** ajv's notion of equal JSON values: deep, object key order ignored. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key in x) {
    if (!Object.hasOwn(y, key) || !deepEqual(x[key], y[key])) return false;
    count++;
  }
  for (const _key in y) count--;
  return count === 0;
}

/** Up to this many items, pairwise comparison (at most 28 pairs) beats building buckets. */
const PAIRWISE_MAX = 8;

/** String members of the first item that distinctAtOneMember tries before giving up. */
const MEMBERS_TRIED = 3;

/**
 * Whether the items are all objects holding a string at one member that no two of them share
 * (a CycloneDX component's bom-ref, say): equal objects hold equal values at every member, so
 * then no two items are equal, and nothing needs hashing. Tries the first few string members of
 * the first item; a member missing from an item, or met twice, is given up at once, so a
 * member like `type` costs a handful of items. At most MEMBERS_TRIED passes over the items.
 */
export function distinctAtOneMember(items: readonly unknown[]): boolean {
  const first = items[0];
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return false;
  let tried = 0;
  for (const key in first) {
    if (typeof (first as Record<string, unknown>)[key] !== 'string') continue;
    if (++tried > MEMBERS_TRIED) return false;
    const seen = new Set<string>();
    let i = 0;
    for (; i < items.length; i++) {
      const item = items[i];
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return false;
      // An object without this member reads undefined here (no JSON object inherits a string).
      const value = (item as Record<string, unknown>)[key];
      if (typeof value !== 'string' || seen.has(value)) break;
      seen.add(value);
    }
    if (i === items.length) return true;
  }
  return false;
}

/**
 * Index of the first item equal to an earlier one, with that earlier index; null if all differ.
 * Linear: small arrays are compared pairwise (a bounded number of pairs); larger ones are
 * bucketed by structural hash, and only items sharing a bucket are compared, by canonical
 * text through a Map, so even crafted collisions cost one serialisation per item.
 */
export function findDuplicate(items: readonly unknown[]): { index: number; firstIndex: number } | null {
  const n = items.length;
  if (n < 2) return null;
  if (n <= PAIRWISE_MAX) {
    for (let i = 1; i < n; i++) for (let j = 0; j < i; j++) if (deepEqual(items[j], items[i])) return { index: i, firstIndex: j };
    return null;
  }
  if (distinctAtOneMember(items)) return null;
  const hash = new StructuralHash();
  let canonical: CanonicalText | undefined;
  const buckets = new Map<number, number | Map<string, number>>();
  for (let i = 0; i < n; i++) {
    const h = hash.of(items[i]);
    const bucket = buckets.get(h);
    if (bucket === undefined) {
      buckets.set(h, i);
      continue;
    }
    canonical ??= new CanonicalText();
    let texts: Map<string, number>;
    if (typeof bucket === 'number') {
      texts = new Map([[canonical.of(items[bucket]), bucket]]);
      buckets.set(h, texts);
    } else texts = bucket;
    const text = canonical.of(items[i]);
    const first = texts.get(text);
    if (first !== undefined) return { index: i, firstIndex: first };
    texts.set(text, i);
  }
  return null;
}
