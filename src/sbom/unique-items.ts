// ajv checks `uniqueItems` by comparing every pair of items (O(n²)): ~16 s for 10,000
// CycloneDX components. The schemas we compile carry this keyword instead, checked in one pass
// by findDuplicate (find-duplicate.ts). This module only rewrites the schemas.
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
