// ajv checks `uniqueItems` by comparing every pair of items (O(n²)): ~16 s for 10,000
// CycloneDX components. The schemas we compile carry this keyword instead, checked in one pass
// by hashing each item (key order ignored, as ajv's deep equality does) and comparing the
// canonical JSON text of items whose hashes collide. Small arrays (most of them: a component's
// licences and hashes) are compared pairwise, which allocates nothing.
export const UNIQUE_KEYWORD = 'x-unique-items';

/** A deep copy of `schema` with every `uniqueItems: true` replaced by UNIQUE_KEYWORD. */
export function withLinearUniqueItems<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withLinearUniqueItems) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'uniqueItems') {
      if (value === true) out[UNIQUE_KEYWORD] = true;
      continue;
    }
    out[key] = withLinearUniqueItems(value);
  }
  return out as T;
}

/**
 * Canonical JSON text: objects with the same key set always list their keys in one order (the
 * first order met for that set), so equal values give equal text whatever their key order,
 * as ajv's deep equality has it. Documents from one generator share key orders, so the
 * native JSON.stringify of the value itself is almost always already canonical; a reordered
 * copy is made only for an object that differs.
 */
export class CanonicalText {
  /** Key order as met (keys joined by NUL) → that order and its canonical order (null: itself). */
  private readonly orders = new Map<string, { keys: string[]; canonical: string[] | null }>();
  /** Sorted key set → its canonical order. */
  private readonly bySet = new Map<string, string[]>();

  of(value: unknown): string {
    return JSON.stringify(this.isCanonical(value) ? value : this.reordered(value));
  }

  private canonicalOrder(keys: string[]): string[] | null {
    const signature = keys.join('\u0000');
    const known = this.orders.get(signature);
    // A key holding NUL could make two orders share a signature: then compare the real keys.
    if (known && sameKeys(known.keys, keys)) return known.canonical;
    const set = JSON.stringify([...keys].sort());
    const canonical = this.bySet.get(set) ?? keys;
    this.bySet.set(set, canonical);
    const order = canonical === keys ? null : canonical;
    if (!known) this.orders.set(signature, { keys, canonical: order });
    return order;
  }

  private isCanonical(value: unknown): boolean {
    if (value === null || typeof value !== 'object') return true;
    if (Array.isArray(value)) return value.every((item) => this.isCanonical(item));
    const keys = Object.keys(value);
    if (keys.length > 1 && this.canonicalOrder(keys) !== null) return false;
    for (const key of keys) if (!this.isCanonical((value as Record<string, unknown>)[key])) return false;
    return true;
  }

  private reordered(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => this.reordered(item));
    const source = value as Record<string, unknown>;
    const keys = Object.keys(source);
    const out: Record<string, unknown> = {};
    for (const key of (keys.length > 1 && this.canonicalOrder(keys)) || keys) out[key] = this.reordered(source[key]);
    return out;
  }
}

const fmix = (h: number): number => {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
};

/** Characters hashed from each end of a long string: bounds the cost per string; the bucket key need not be exact. */
const STRING_SAMPLE = 16;
const TAG_STRING = 0x3c6ef372;
const TAG_NUMBER = 0x1b873593;
const TAG_TRUE = 0x5bd1e995;
const TAG_FALSE = 0x68e31da4;
const TAG_NULL = 0x2f8a3c71;

/** FNV-1a over the string's length and UTF-16 units (the first and last STRING_SAMPLE of a long one). */
function stringHash(s: string): number {
  const n = s.length;
  let h = Math.imul(0x811c9dc5 ^ n, 0x01000193);
  if (n <= 2 * STRING_SAMPLE) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  } else {
    for (let i = 0; i < STRING_SAMPLE; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    for (let i = n - STRING_SAMPLE; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  }
  return h;
}

/** Levels of nesting the bucket key looks into: deeper values count only by kind and size. */
const HASH_DEPTH = 2;

/**
 * A 32-bit bucket key of a JSON value that ignores object key order: strings hashed in place
 * (no Map of every distinct value, no text built), object members combined commutatively,
 * array items in order, and only HASH_DEPTH levels deep (items of a large array differ near
 * the top: ids, names, versions; hashing all of each one cost twice as much). Equal values (as
 * ajv's deep equality has it) always get equal keys; unequal ones may share a key, which only
 * costs an exact comparison.
 */
class StructuralHash {
  /** Member name → its hash: a document repeats a few names on every item. */
  private readonly names = new Map<string, number>();

  private name(key: string): number {
    let h = this.names.get(key);
    if (h === undefined) {
      h = stringHash(key);
      this.names.set(key, h);
    }
    return h;
  }

  of(value: unknown, depth = HASH_DEPTH): number {
    switch (typeof value) {
      case 'string':
        return fmix(stringHash(value) ^ TAG_STRING);
      case 'number':
        // -0 and 0 are equal for ajv, and `| 0` maps both to 0.
        return fmix((Number.isInteger(value) && Math.abs(value) <= 0x7fffffff ? value | 0 : stringHash(String(value))) ^ TAG_NUMBER);
      case 'boolean':
        return value ? TAG_TRUE : TAG_FALSE;
      case 'object': {
        if (value === null) return TAG_NULL;
        if (Array.isArray(value)) {
          let h = 0x811c9dc5 ^ value.length;
          if (depth > 0) for (let i = 0; i < value.length; i++) h = Math.imul(h ^ this.of(value[i], depth - 1), 16777619);
          return fmix(h);
        }
        let sum = 0;
        let count = 0;
        for (const key in value) {
          if (depth > 0)
            sum = (sum + fmix(Math.imul(this.name(key), 0x27d4eb2d) ^ this.of((value as Record<string, unknown>)[key], depth - 1))) | 0;
          count++;
        }
        return fmix(sum ^ Math.imul(count, 0x165667b1));
      }
      default:
        return 0;
    }
  }
}

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

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
