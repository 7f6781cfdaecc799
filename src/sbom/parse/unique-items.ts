import { withKeywordsRewritten } from './schema-rewrite.js';

// ajv checks `uniqueItems` by comparing every pair of items (O(n²)): ~16 s for 10,000
// CycloneDX components. The schemas we compile carry this keyword instead, checked in one pass
// by findDuplicate (find-duplicate.ts). This module only rewrites the schemas.
export const UNIQUE_KEYWORD = 'x-unique-items';

/** A deep copy of `schema` with every `uniqueItems: true` moved to UNIQUE_KEYWORD (`false` asks nothing and stays). */
export function withLinearUniqueItems<T>(schema: T): T {
  return withKeywordsRewritten(schema, (key, value) => (key === 'uniqueItems' && value === true ? UNIQUE_KEYWORD : null));
}
