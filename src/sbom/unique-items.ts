// ajv checks `uniqueItems` by comparing every pair of items (O(n²)): ~16 s for 10,000
// CycloneDX components. The schemas we compile carry this keyword instead, checked in one pass
// by hashing each item (key order ignored, as ajv's deep equality does) and comparing the
// canonical JSON text of items whose hashes collide.
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

/**
 * A 32-bit hash of a JSON value that ignores object key order, computed without building any
 * text: every distinct primitive gets a small id from a Map (V8 hashes the string natively),
 * object members combine commutatively, array items in order. Equal values hash equal.
 */
class StructuralHash {
  private readonly ids = new Map<unknown, number>();

  private id(value: unknown): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.ids.size + 1;
      this.ids.set(value, id);
    }
    return id;
  }

  of(value: unknown): number {
    if (value === null || typeof value !== 'object') return fmix(Math.imul(this.id(value), 0x9e3779b1));
    if (Array.isArray(value)) {
      let h = 0x811c9dc5 ^ value.length;
      for (const item of value) h = Math.imul(h ^ this.of(item), 16777619);
      return fmix(h);
    }
    let sum = 0;
    let count = 0;
    for (const key in value) {
      sum = (sum + fmix(Math.imul(this.id(key), 0x27d4eb2d) ^ this.of((value as Record<string, unknown>)[key]))) | 0;
      count++;
    }
    return fmix(sum ^ Math.imul(count, 0x165667b1));
  }
}

/**
 * Index of the first item equal to an earlier one, with that earlier index; null if all differ.
 * Linear: items are bucketed by structural hash; only items sharing a bucket are compared, by
 * canonical text through a Map, so even crafted collisions cost one serialisation per item.
 */
export function findDuplicate(items: readonly unknown[]): { index: number; firstIndex: number } | null {
  if (items.length < 2) return null;
  const hash = new StructuralHash();
  const canonical = new CanonicalText();
  const buckets = new Map<number, number | Map<string, number>>();
  for (let i = 0; i < items.length; i++) {
    const h = hash.of(items[i]);
    const bucket = buckets.get(h);
    if (bucket === undefined) {
      buckets.set(h, i);
      continue;
    }
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
