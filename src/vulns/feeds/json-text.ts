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

/**
 * The deepest nesting of `text`'s objects and arrays and its longest string (in UTF-16 units),
 * in one pass that never recurses (V8's JSON.parse would, deep enough, overflow the stack).
 */
export function measureJson(text: string): { depth: number; longestString: number } {
  let depth = 0;
  let deepest = 0;
  let longest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      if (i - start - 1 > longest) longest = i - start - 1;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return { depth: deepest, longestString: longest };
}

/** UTF-8 JSON bytes → a value, or a FeedRecordError saying why not (never U+FFFD, never a prototype key). */
export function parseJsonText(bytes: Buffer | string, limits = { depth: MAX_DEPTH, string: MAX_STRING }): unknown {
  if (typeof bytes !== 'string' && !isUtf8(bytes)) throw new FeedRecordError('not UTF-8 text');
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  const { depth, longestString } = measureJson(text);
  if (depth > limits.depth) throw new FeedRecordError(`nested ${depth} levels deep (at most ${limits.depth})`);
  if (longestString > limits.string) throw new FeedRecordError(`holds a string of ${longestString} characters (at most ${limits.string})`);
  try {
    if (!mayBePoisoned(text)) return JSON.parse(text) as unknown;
    return secureJsonParse.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const poisoned = error instanceof SyntaxError && /prototype/i.test(error.message);
    throw new FeedRecordError(poisoned ? 'uses a prototype-poisoning key' : 'is not valid JSON');
  }
}
