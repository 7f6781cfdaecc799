import { canonicalJson } from '../shared/canonical-json.js';

// ajv checks `uniqueItems` by comparing every pair of items (O(n²)): ~16 s for 10,000
// CycloneDX components. The schemas we compile carry this keyword instead, checked in one pass
// by hashing each item's canonical JSON (key order does not matter, as for ajv's deep equal).
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

/** Index of the first item equal to an earlier one, with that earlier index; null if all differ. */
export function findDuplicate(items: readonly unknown[]): { index: number; firstIndex: number } | null {
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    // Strings and numbers hash as themselves, tagged so "1" and 1 stay distinct.
    const key = typeof item === 'string' ? `s${item}` : typeof item === 'number' ? `n${item}` : `j${canonicalJson(item)}`;
    const first = seen.get(key);
    if (first !== undefined) return { index: i, firstIndex: first };
    seen.set(key, i);
  }
  return null;
}
