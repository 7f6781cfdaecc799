import type { ComponentFieldId, DocumentFieldId, ProfileRules } from './profile.js';

// What each format reader (cyclonedx.ts, spdx3.ts, spdx2.ts) gives the evaluator: the document's
// fields and its components, each field answered with null (present) or why it is missing. A
// reader is built once per document and serves every profile.

export type { ProfileRules };

export type Json = Record<string, unknown>;

export interface ComponentView {
  ref: string;
  name: string;
  version: string;
  /** Groups others and names no deployable form (sbom-conformance.md, "The subject is a component"). */
  logical: boolean;
}

export interface FormatReader<C extends ComponentView = ComponentView> {
  /** Null when the document holds the field, else why not. */
  document(field: DocumentFieldId): string | null;
  /** Every component, the subject first, in document order. */
  components: readonly C[];
  /**
   * Null when the component holds the field, else why not; a few fields read differently per
   * profile (dependencies). Without `explain` (the field has its examples already) a why that
   * would cost a list and a string to build may be a plain one.
   */
  component(field: ComponentFieldId, component: C, profile: ProfileRules, explain: boolean): string | null;
  /** Whether the document carries vulnerability information. */
  vulnerabilities: boolean;
}

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function objects(value: unknown): Json[] {
  return list(value).filter(isObject);
}

/** Whether some object of the list `value` satisfies `test` (no list built: these run per component and field). */
export function someObject(value: unknown, test: (o: Json) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (const v of value) if (isObject(v) && test(v)) return true;
  return false;
}

/** A trimmed non-empty string, else null. */
export function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const t = value.trim();
  return t === '' ? null : t;
}

/** A filename, not a path: no `/` or `\` (sbom-conformance.md, "Filename"). */
export function filenameProblem(value: string | null, what: string): string | null {
  if (value === null) return `no ${what}`;
  if (/[/\\]/.test(value)) return `a path, not a filename (${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}…` : value)})`;
  return null;
}
