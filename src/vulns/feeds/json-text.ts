import { isUtf8 } from 'node:buffer';
import secureJsonParse from 'secure-json-parse';
import { mayBePoisoned } from '../../shared/poisoned-json.js';

// Feed records come from outside: every one is read under the same bounds, so that a hostile
// record costs a clear refusal, never the process. A record that breaks one is skipped and named.

/** How deep objects and arrays may nest in one record (real OSV records stay under 10). */
export const MAX_DEPTH = 64;
/** The longest string a record may hold (a details text of real records is a few KiB). */
export const MAX_STRING = 256 * 1024;

export class FeedRecordError extends Error {}

export interface JsonLimits {
  depth: number;
  string: number;
}

/**
 * The value's canonical JSON (object keys sorted at every level: the same content always gives
 * the same text), checked on the way: nesting deeper than `limits.depth` or a string longer
 * than `limits.string` is a FeedRecordError. One walk does both, and it never recurses deeper
 * than the limit (JSON.parse itself does not recurse, whatever the nesting).
 */
export function checkedCanonical(value: unknown, limits: JsonLimits = { depth: MAX_DEPTH, string: MAX_STRING }): string {
  // A sorted copy, then the engine's own stringify: faster than building the text here.
  const sorted = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      if (v.length > limits.string) throw new FeedRecordError(`holds a string of ${v.length} characters (at most ${limits.string})`);
      return v;
    }
    if (v === null || typeof v !== 'object') return v;
    if (depth >= limits.depth) throw new FeedRecordError(`is nested more than ${limits.depth} levels deep`);
    if (Array.isArray(v)) return v.map((item) => sorted(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) out[key] = sorted((v as Record<string, unknown>)[key], depth + 1);
    return out;
  };
  return JSON.stringify(sorted(value, 0));
}

/** UTF-8 JSON bytes → a value, or a FeedRecordError saying why not (never U+FFFD, never a prototype key). */
export function parseJson(bytes: Buffer | string): unknown {
  if (typeof bytes !== 'string' && !isUtf8(bytes)) throw new FeedRecordError('is not UTF-8 text');
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  try {
    if (!mayBePoisoned(text)) return JSON.parse(text) as unknown;
    return secureJsonParse.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const poisoned = error instanceof SyntaxError && /prototype/i.test(error.message);
    throw new FeedRecordError(poisoned ? 'uses a prototype-poisoning key' : 'is not valid JSON');
  }
}

/** `parseJson`, then the limits checked (for documents read whole: KEV catalogues, VEX). */
export function parseJsonText(bytes: Buffer | string, limits: JsonLimits = { depth: MAX_DEPTH, string: MAX_STRING }): unknown {
  const value = parseJson(bytes);
  checkedCanonical(value, limits);
  return value;
}
