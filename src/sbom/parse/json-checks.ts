import type { ErrorDetail } from '../../errors.js';

// Small building blocks for the SBOM validators: each records failures as
// {path: JSON pointer, message} in the order met, up to a cap.

/** At most this many failures are reported for one document, whatever its format. */
export const MAX_DETAILS = 50;

export type Json = Record<string, unknown>;

export class Problems {
  readonly details: ErrorDetail[] = [];

  add(path: string, message: string): void {
    if (this.details.length < MAX_DETAILS) this.details.push({ path: path || '/', message });
  }

  get full(): boolean {
    return this.details.length >= MAX_DETAILS;
  }
}

export function pointer(base: string, key: string | number): string {
  return `${base}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A required, non-empty string property. */
export function requireString(p: Problems, obj: Json, key: string, path: string): string | undefined {
  const value = obj[key];
  if (value === undefined) p.add(pointer(path, key), `must have required property '${key}'`);
  else if (typeof value !== 'string') p.add(pointer(path, key), 'must be string');
  else if (value.trim() === '') p.add(pointer(path, key), 'must not be empty');
  else return value;
  return undefined;
}

export function optionalString(p: Problems, obj: Json, key: string, path: string): void {
  if (obj[key] !== undefined && typeof obj[key] !== 'string') p.add(pointer(path, key), 'must be string');
}

/** An optional array property; returns its items (empty when absent or of the wrong type). */
export function optionalArray(p: Problems, obj: Json, key: string, path: string): unknown[] {
  const value = obj[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    p.add(pointer(path, key), 'must be array');
    return [];
  }
  return value;
}

/** Objects of an array, each with its pointer; non-objects are reported. */
export function* objectsOf(p: Problems, items: unknown[], path: string): Generator<[Json, string]> {
  for (let i = 0; i < items.length && !p.full; i++) {
    const item = items[i];
    const at = pointer(path, i);
    if (isObject(item)) yield [item, at];
    else p.add(at, 'must be object');
  }
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function requireDateTime(p: Problems, obj: Json, key: string, path: string): void {
  const value = requireString(p, obj, key, path);
  if (value !== undefined && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value)))) {
    p.add(pointer(path, key), 'must be a date-time (YYYY-MM-DDThh:mm:ssZ)');
  }
}

/** Records the pointer of an identifier met twice. */
export class UniqueIds {
  private readonly seen = new Map<string, string>();

  check(p: Problems, id: string | undefined, path: string): void {
    if (id === undefined) return;
    const first = this.seen.get(id);
    if (first !== undefined) p.add(path, `duplicates the identifier at ${first}`);
    else this.seen.set(id, path);
  }
}
