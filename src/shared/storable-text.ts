import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';

// Text the databases can store. PostgreSQL refuses a NUL character in text and jsonb (SQLite
// takes it), and a lone UTF-16 surrogate has no UTF-8 form (SQLite would silently store U+FFFD,
// PostgreSQL's jsonb refuses its escape). Checked before any query, so both backends answer the
// same 4xx instead of PostgreSQL's 500.

const MAX_DETAILS = 20;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why this string cannot be stored, or null when it can. */
export function unstorableReason(value: string): string | null {
  if (value.includes('\0')) return 'contains a NUL character (U+0000), which cannot be stored';
  if (LONE_SURROGATE.test(value)) return 'contains a lone UTF-16 surrogate, which is not valid Unicode text';
  return null;
}

export function isStorableText(value: string): boolean {
  return unstorableReason(value) === null;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Every string in `value` (object keys included, at any depth: iterative, so a deeply nested
 * document cannot overflow the stack) that cannot be stored, as JSON pointers (at most 20).
 */
export function findUnstorableText(value: unknown, root = ''): ErrorDetail[] {
  const found: ErrorDetail[] = [];
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length > 0 && found.length < MAX_DETAILS) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      const reason = unstorableReason(current);
      if (reason) found.push({ path: path || '/', message: reason });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], `${path}/${i}`]);
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const childPath = `${path}/${escapePointer(key)}`;
        const reason = unstorableReason(key);
        if (reason) found.push({ path: childPath, message: `the member name ${reason}` });
        stack.push([child, childPath]);
      }
    }
  }
  return found;
}

// The hex digits of a \u escape that writes a NUL or a surrogate.
const UNSTORABLE_ESCAPE = '(?:0000|d[89a-f])';
const UNSTORABLE_IN_TEXT = new RegExp(`\\\\u${UNSTORABLE_ESCAPE}`, 'i');
const UNSTORABLE_DIGITS = new RegExp(`^${UNSTORABLE_ESCAPE}`, 'i');

/**
 * A cheap look at raw JSON text before walking the parsed document: in JSON, a NUL or a lone
 * surrogate can only be written as a \u escape, so text without one needs no walk.
 */
export function jsonMayHoldUnstorableText(json: string): boolean {
  return UNSTORABLE_IN_TEXT.test(json);
}

/**
 * The same look at JSON still in UTF-8 bytes (an SBOM of tens of MiB, not decoded yet): only
 * the four characters after each `\u` are read, so bytes without escapes cost one search. An
 * escaped backslash before a `u` counts too (harmless: the walk then looks at the strings).
 */
export function jsonBytesMayHoldUnstorable(bytes: Buffer): boolean {
  for (let at = bytes.indexOf('\\u'); at >= 0; at = bytes.indexOf('\\u', at + 2)) {
    if (UNSTORABLE_DIGITS.test(bytes.toString('latin1', at + 2, at + 6))) return true;
  }
  return false;
}

/**
 * Throws 422 (`validation_failed` unless told otherwise) naming each field whose text cannot be
 * stored. `fields` maps a field name (used as the JSON pointer /name) to its value.
 */
export function assertStorableText(fields: Record<string, unknown>, code: ErrorCode = 'validation_failed'): void {
  const details = findUnstorableText(fields);
  if (details.length === 0) return;
  const names = details.map((d) => d.path.slice(1).split('/')[0]).filter((n, i, all) => all.indexOf(n) === i);
  throw new AppError(code, `${names.join(', ')} ${details[0]!.message}`, details);
}
