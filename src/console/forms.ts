import { Kind, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError } from '../errors.js';
import { parseTimestamp } from '../shared/time.js';

// Forms are validated on the server with TypeBox, like the API's bodies. Each field's schema
// may carry `message`: the sentence shown next to that field when it fails.

export type FieldErrors = Record<string, string>;
export type FormResult<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors; values: Record<string, unknown> };

/** A form body (urlencoded: strings, repeated fields as arrays) checked against `schema`. */
export function parseForm<T extends TObject>(schema: T, body: unknown): FormResult<Static<T>> {
  const raw = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.properties) as Array<[string, TSchema]>) {
    let value = raw[name];
    if (field[Kind] === 'Array') value = value === undefined ? [] : Array.isArray(value) ? value : [value];
    else if (Array.isArray(value)) value = value[0];
    if (typeof value === 'string' && field[Kind] === 'String' && field.trim !== false) value = value.trim();
    if (value !== undefined) values[name] = value;
  }
  const errors: FieldErrors = {};
  for (const error of Value.Errors(schema, values)) {
    const name = error.path.split('/')[1] ?? '';
    if (errors[name]) continue;
    const field = schema.properties[name] as (TSchema & { message?: string }) | undefined;
    errors[name] = field?.message ?? error.message;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors, values };
  return { ok: true, value: values as Static<T> };
}

/**
 * A service's validation error, shown next to `field` (or above the form). Other errors are
 * rethrown for the error page.
 */
export function serviceErrors(error: unknown, field = '_form'): FieldErrors {
  if (
    error instanceof AppError &&
    [
      'validation_failed',
      'conflict',
      'product_archived',
      'invalid_sbom',
      'sbom_not_conformant',
      'unsupported_sbom_format',
      'invalid_json',
      'product_not_found',
    ].includes(error.code)
  ) {
    const errors: FieldErrors = { [field]: error.message };
    if (error.details?.length && field !== '_form')
      errors[field] = `${error.message}: ${error.details
        .slice(0, 3)
        .map((d) => (d.path === '' ? d.message : `${d.path} ${d.message}`))
        .join('; ')}`;
    return errors;
  }
  throw error;
}

/** A time typed as YYYY-MM-DDTHH:MM[:SS][Z] (the console speaks UTC); undefined when empty, null when impossible. */
export function parseUtcInput(raw: string): Date | null | undefined {
  if (!raw) return undefined;
  const withSeconds = raw.length === 16 ? `${raw}:00` : raw;
  return parseTimestamp(withSeconds.endsWith('Z') ? withSeconds : `${withSeconds}Z`);
}

/** The pattern of what parseUtcInput accepts (or an empty field). */
export const UTC_INPUT = '^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2})?Z?)?$';
