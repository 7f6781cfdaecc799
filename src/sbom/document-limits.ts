import { AppError } from '../errors.js';
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
 * (when `mayHoldNul`) a string or key holding a NUL character, which PostgreSQL text cannot
 * store. Walks with an explicit stack, so it holds at any depth; it runs before anything that
 * recurses. `mayHoldNul` is false when the JSON text has no `\u0000` escape (JSON cannot hold
 * a raw NUL), which spares the string checks for nearly every document.
 */
export function checkDocumentLimits(document: unknown, mayHoldNul: boolean): void {
  // A first walk keeps no paths (parallel stacks, nothing allocated per value); only a document
  // that breaks a limit is walked again, in the same order, to name the pointer.
  if (findViolation(document, mayHoldNul, null)) findViolation(document, mayHoldNul, ['']);
}

/** Depth first, in document order. With `paths`, throws at the first violation; without, reports one. */
function findViolation(document: unknown, mayHoldNul: boolean, paths: string[] | null): boolean {
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
      if (value.includes('\u0000')) return fail(path, 'must not contain a NUL character (\\u0000)');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) return fail(path, `nests deeper than ${MAX_DEPTH} levels of objects and arrays`);
    const isArray = Array.isArray(value);
    const keys = isArray ? null : Object.keys(value);
    const length = isArray ? value.length : keys!.length;
    for (let i = length - 1; i >= 0; i--) {
      const key = isArray ? i : keys![i]!;
      if (mayHoldNul && !isArray && (key as string).includes('\u0000'))
        return fail(pointer(path, key), 'the key must not contain a NUL character (\\u0000)');
      const item: unknown = (value as Record<string | number, unknown>)[key];
      if (item === null || (typeof item !== 'object' && !(mayHoldNul && typeof item === 'string'))) continue;
      values.push(item);
      depths.push(depth + 1);
      paths?.push(pointer(path, key));
    }
  }
  return false;
}
