import { withKeywordsRewritten } from './schema-rewrite.js';

// ajv tests a `pattern` with a Unicode RegExp; the CycloneDX hash-content pattern (five
// alternatives of hex runs, on every hash of every component) took ~0.3 µs a test, a sixth of
// validating a document. The schemas we compile carry this keyword instead for the patterns
// below, each checked by a plain function that accepts exactly what its RegExp accepts
// (test/sbom/parse/sbom-pure.test.ts holds each equal to its RegExp), with ajv's own error (only its
// schemaPath names this keyword, as with large-enums.ts; the API reports instance paths).
export const FAST_PATTERN_KEYWORD = 'x-fast-pattern';

const HEX_LENGTHS = new Set([32, 40, 64, 96, 128]);

function isHexRun(value: string): boolean {
  if (!HEX_LENGTHS.has(value.length)) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46))) return false;
  }
  return true;
}

/** Pattern source → a function accepting exactly the strings its RegExp (flag u) matches. */
export const FAST_PATTERNS: ReadonlyMap<string, (value: string) => boolean> = new Map([
  ['^([a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{64}|[a-fA-F0-9]{96}|[a-fA-F0-9]{128})$', isHexRun],
]);

/** A deep copy of `schema` with every `pattern` that FAST_PATTERNS knows moved to FAST_PATTERN_KEYWORD. */
export function withFastPatterns<T>(schema: T): T {
  return withKeywordsRewritten(schema, (key, value) =>
    key === 'pattern' && typeof value === 'string' && FAST_PATTERNS.has(value) ? FAST_PATTERN_KEYWORD : null,
  );
}
