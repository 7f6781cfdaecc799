import { withKeywordsRewritten } from './schema-rewrite.js';

// ajv checks an `enum` of more than a few values by calling its deep equality on each value in
// turn: the SPDX licence list the CycloneDX schemas use has 800+ ids, so every `license.id` cost
// hundreds of calls (~10 ms per 10,000 components). The schemas we compile carry this keyword
// instead for enums made only of strings, checked with one Set lookup; a non-string never
// equals a string, so the outcome is the same.
export const STRING_ENUM_KEYWORD = 'x-string-enum';

/** Below this many values ajv's inlined `===` chain is as fast as a Set. */
const MIN_VALUES = 16;

/** A deep copy of `schema` with every large all-string `enum` replaced by STRING_ENUM_KEYWORD. */
export function withSetEnums<T>(schema: T): T {
  return withKeywordsRewritten(schema, (key, value) =>
    key === 'enum' && Array.isArray(value) && value.length >= MIN_VALUES && value.every((v) => typeof v === 'string')
      ? STRING_ENUM_KEYWORD
      : null,
  );
}
