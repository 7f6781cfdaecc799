import { AppError } from '../../errors.js';
import { unstorableReason } from '../../shared/storable-text.js';
import { pointer } from './json-checks.js';

/**
 * Deepest nesting of objects and arrays a document may have. The schema validators and the
 * normaliser recurse once per level and would overflow the stack somewhere past ~800 levels;
 * real SBOMs nest components a few levels (CycloneDX: each level is an object and an array).
 */
export const MAX_DEPTH = 100;

function invalid(path: string, message: string): AppError {
  return new AppError('invalid_sbom', 'the SBOM does not conform to its specification', [{ path, message }]);
}

/**
 * Rejects, as invalid_sbom naming the JSON pointer, a document nested deeper than MAX_DEPTH and
 * (when `mayHoldUnstorable`) a string or key holding a NUL character, which PostgreSQL text
 * cannot store, or a lone UTF-16 surrogate, which has no UTF-8 form (SQLite would store U+FFFD
 * in its place; joined with a neighbour's it would even pair up). Walks with an explicit stack,
 * so it holds at any depth; it runs before anything that recurses. `mayHoldUnstorable` is false
 * when the JSON text has no \u0000 or surrogate escape (JSON can write either only as an
 * escape: jsonBytesMayHoldUnstorable in shared/storable-text.ts), which spares the string checks for nearly every document.
 */
export function checkDocumentLimits(document: unknown, mayHoldUnstorable: boolean): void {
  // A first walk keeps no paths (parallel stacks, nothing allocated per value); only a document
  // that breaks a limit is walked again, in the same order, to name the pointer.
  if (findViolation(document, mayHoldUnstorable, null)) findViolation(document, mayHoldUnstorable, ['']);
}

/** Depth first, in document order. With `paths`, throws at the first violation; without, reports one. */
function findViolation(document: unknown, mayHoldUnstorable: boolean, paths: string[] | null): boolean {
  const values: unknown[] = [document];
  const depths: number[] = [0];
  const fail = (path: string, message: string): true => {
    if (paths) throw invalid(path || '/', message);
    return true;
  };
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    const path = paths ? paths.pop()! : '';
    if (typeof value === 'string') {
      const problem = unstorable(value);
      if (problem) return fail(path, problem);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) return fail(path, `nests deeper than ${MAX_DEPTH} levels of objects and arrays`);
    const isArray = Array.isArray(value);
    if (paths === null && !isArray) {
      // Without paths the order does not matter: for-in visits the keys without building an
      // array of them (Object.keys built one per object, ~3 MB for 10,000 components).
      for (const key in value) {
        if (mayHoldUnstorable && unstorable(key)) return true;
        const item: unknown = (value as Record<string, unknown>)[key];
        if (item === null || (typeof item !== 'object' && !(mayHoldUnstorable && typeof item === 'string'))) continue;
        values.push(item);
        depths.push(depth + 1);
      }
      continue;
    }
    const keys = isArray ? null : Object.keys(value);
    const length = isArray ? value.length : keys!.length;
    for (let i = length - 1; i >= 0; i--) {
      const key = isArray ? i : keys![i]!;
      const keyProblem = mayHoldUnstorable && !isArray ? unstorable(key as string) : null;
      if (keyProblem) return fail(pointer(path, key), `the key ${keyProblem}`);
      const item: unknown = (value as Record<string | number, unknown>)[key];
      if (item === null || (typeof item !== 'object' && !(mayHoldUnstorable && typeof item === 'string'))) continue;
      values.push(item);
      depths.push(depth + 1);
      paths?.push(pointer(path, key));
    }
  }
  return false;
}

/** Why a string of the document cannot be stored, as the 422 says it, or null. */
function unstorable(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain a NUL character (\\u0000)';
  return unstorableReason(value) === null ? null : 'must not contain a lone UTF-16 surrogate (it is not valid Unicode text)';
}
