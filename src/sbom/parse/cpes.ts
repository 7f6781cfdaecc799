import { AppError } from '../../errors.js';
import type { Json } from './json-checks.js';

// The CPEs an SBOM gives a component or its subject (firmware.md, "Which CPE a component has"):
// CycloneDX `cpe`; SPDX 2 `externalRefs` of category SECURITY and type cpe23Type or cpe22Type;
// SPDX 3 `externalIdentifier` of type cpe23 or cpe22. Kept as given (surrounding whitespace
// trimmed, as every field is), newline-separated in document order; whether one parses is the
// matcher's question (a CPE that does not is `cpe_invalid` in coverage), not the reader's. Only
// a CPE holding a control character is refused: it could not be stored newline-separated as
// given, and no CPE binding allows one.

/** Whether `text` holds a C0 control character or DEL. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** The trimmed CPE, null for none (not a string, or empty); throws invalid_sbom at `path()` for one holding a control character. */
function cpeText(value: unknown, path: () => string): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (text === '') return null;
  if (hasControl(text)) {
    throw new AppError('invalid_sbom', 'the SBOM does not conform to its specification', [
      { path: path(), message: 'a CPE must not contain a control character (U+0000–U+001F, U+007F)' },
    ]);
  }
  return text;
}

/** CycloneDX `cpe` (one per component). */
export function cycloneDxCpes(value: unknown, path: () => string): string | null {
  return cpeText(value, path);
}

// OpenEmbedded's create-spdx (SPDX 2.2) writes the types as their full URIs.
const SPDX2_CPE_TYPES = new Set([
  'cpe23Type',
  'cpe22Type',
  'http://spdx.org/rdf/references/cpe23Type',
  'http://spdx.org/rdf/references/cpe22Type',
]);

/** SPDX 2 `externalRefs` (`path()`: theirs). */
export function spdx2Cpes(refs: readonly Json[], path: () => string): string | null {
  let cpes: string | null = null;
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i];
    if (ref?.referenceCategory !== 'SECURITY' || !SPDX2_CPE_TYPES.has(ref.referenceType as string)) continue;
    const cpe = cpeText(ref.referenceLocator, () => `${path()}/${i}/referenceLocator`);
    if (cpe !== null) cpes = cpes === null ? cpe : `${cpes}\n${cpe}`;
  }
  return cpes;
}

const SPDX3_CPE_TYPES = new Set(['cpe23', 'cpe22']);

/** SPDX 3 `externalIdentifier` (`path()`: its). */
export function spdx3Cpes(identifiers: unknown, path: () => string): string | null {
  if (!Array.isArray(identifiers)) return null;
  let cpes: string | null = null;
  for (let i = 0; i < identifiers.length; i++) {
    const id = identifiers[i] as Json | null;
    if (id === null || typeof id !== 'object' || !SPDX3_CPE_TYPES.has(id.externalIdentifierType as string)) continue;
    const cpe = cpeText(id.identifier, () => `${path()}/${i}/identifier`);
    if (cpe !== null) cpes = cpes === null ? cpe : `${cpes}\n${cpe}`;
  }
  return cpes;
}
