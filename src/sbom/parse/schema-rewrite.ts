// The compiled CycloneDX schemas carry a few keywords of our own in place of standard ones that
// ajv checks slowly (unique-items.ts, large-enums.ts, fast-patterns.ts). Each is a rename made by
// this one walk, which tells keywords from the names and the data around them.

/** Keywords whose values are JSON data, not schemas: copied as they are. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
/**
 * Keywords whose values map names to schemas (`dependencies`, of drafts 4–7, maps a name to a
 * schema or to a list of names): a name may read like a keyword ("enum"), so only the schemas
 * inside are rewritten.
 */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies']);

/**
 * A deep copy of `schema` in which `rename(keyword, value)` may move a keyword's value to
 * another keyword (it returns the new name, or null to keep it). Only keywords of schemas are
 * offered: JSON data (enum values, defaults, examples) is copied as it is, and a property named
 * like a keyword ("enum", "pattern") is a name, never offered itself.
 */
export function withKeywordsRewritten<T>(schema: T, rename: (keyword: string, value: unknown) => string | null): T {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const renamed = rename(key, value);
      if (renamed !== null) out[renamed] = value;
      else if (DATA_KEYWORDS.has(key)) out[key] = value;
      else if (SCHEMA_MAPS.has(key)) out[key] = mapValues(value, rewrite);
      else out[key] = rewrite(value);
    }
    return out;
  };
  return rewrite(schema) as T;
}

function mapValues(value: unknown, rewrite: (node: unknown) => unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return rewrite(value);
  return Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, rewrite(sub)]));
}
