// ajv checks `uniqueItems` by comparing every pair of items (O(n²)): ~16 s for 10,000
// CycloneDX components. The schemas we compile carry this keyword instead, checked in one pass
// by hashing each item's canonical JSON text into a Map.
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
  /** Key order as met (JSON of the key list) → the canonical order, or null if it is it. */
  private readonly orders = new Map<string, string[] | null>();
  /** Sorted key set → its canonical order. */
  private readonly bySet = new Map<string, string[]>();

  of(value: unknown): string {
    return JSON.stringify(this.isCanonical(value) ? value : this.reordered(value));
  }

  private canonicalOrder(keys: string[]): string[] | null {
    const signature = JSON.stringify(keys);
    let order = this.orders.get(signature);
    if (order === undefined) {
      const set = JSON.stringify([...keys].sort());
      const canonical = this.bySet.get(set) ?? keys;
      this.bySet.set(set, canonical);
      order = canonical === keys ? null : canonical;
      this.orders.set(signature, order);
    }
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

/** Index of the first item equal to an earlier one, with that earlier index; null if all differ. */
export function findDuplicate(items: readonly unknown[], canonical = new CanonicalText()): { index: number; firstIndex: number } | null {
  if (items.length < 2) return null;
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const key = canonical.of(items[i]);
    const first = seen.get(key);
    if (first !== undefined) return { index: i, firstIndex: first };
    seen.set(key, i);
  }
  return null;
}
