// ajv checks an `enum` of more than a few values by calling its deep equality on each value in
// turn: the SPDX licence list the CycloneDX schemas use has 800+ ids, so every `license.id` cost
// hundreds of calls (~10 ms per 10,000 components). The schemas we compile carry this keyword
// instead for enums made only of strings, checked with one Set lookup; a non-string never
// equals a string, so the outcome is the same.
export const STRING_ENUM_KEYWORD = 'x-string-enum';

/** Below this many values ajv's inlined `===` chain is as fast as a Set. */
const MIN_VALUES = 16;

const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

/** A deep copy of `schema` with every large all-string `enum` replaced by STRING_ENUM_KEYWORD. */
export function withSetEnums<T>(schema: T): T {
  return withKeywordsRewritten(schema, (key, value) =>
    key === 'enum' && Array.isArray(value) && value.length >= MIN_VALUES && value.every((v) => typeof v === 'string')
      ? STRING_ENUM_KEYWORD
      : null,
  );
}

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
      // Values of these are JSON data, not schemas: copied untouched.
      else if (DATA_KEYWORDS.has(key)) out[key] = value;
      // These map names to schemas, and a name may be "enum": rewrite only inside the schemas.
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
