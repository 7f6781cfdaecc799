import type { Static, TObject } from '@sinclair/typebox';

/**
 * `value` cut down to exactly the properties of `schema`, in the schema's order: what the API's
 * response serializer writes for it. Doors that print JSON themselves (the CLI) go through this,
 * so a field the schema does not name never leaks and the shapes cannot drift apart.
 */
export function viewOf<T extends TObject>(schema: T, value: Static<T>): Static<T> {
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) if (source[key] !== undefined) out[key] = source[key];
  return out as Static<T>;
}
