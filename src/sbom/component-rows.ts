import { hash } from 'node:crypto';
import type { ComponentsTable } from '../db/schema.js';
import type { NormalisedComponent } from './normalise.js';

// A component is stored once per organisation, addressed by its normalised fields. Its "text"
// is those fields joined by NUL (which no stored string can hold: documents with NUL are
// rejected), absent values empty; its key is a digest of that text. Pure: used by the parse
// worker, the repository and the migration that moved the existing rows.

/** A component's normalised fields, as the components table stores them. */
export type ComponentFields = Pick<ComponentsTable, 'name' | 'version' | 'purl' | 'type' | 'licenses' | 'ref'>;

const SEP = '\u0000';

export function componentText(c: NormalisedComponent): string {
  const licenses = c.licenses.length > 0 ? JSON.stringify(c.licenses) : '';
  return `${c.name}${SEP}${c.version ?? ''}${SEP}${c.purl ?? ''}${SEP}${c.type ?? ''}${SEP}${licenses}${SEP}${c.ref ?? ''}`;
}

/** The same text from stored columns (the migration reads rows, not documents). */
export function storedComponentText(f: ComponentFields): string {
  return [f.name, f.version ?? '', f.purl ?? '', f.type ?? '', f.licenses ?? '', f.ref ?? ''].join(SEP);
}

/** 128 bits of SHA-256, base64url (22 characters): no collision in any realistic portfolio. */
export function componentKey(text: string): string {
  // The one-shot hash: a third of createHash's cost, called once per component of every upload.
  return hash('sha256', text, 'buffer').subarray(0, 16).toString('base64url');
}

export const KEY_LENGTH = 22;

export function componentFields(text: string): ComponentFields {
  const [name = '', version, purl, type, licenses, ref] = text.split(SEP);
  const orNull = (v: string | undefined) => (v ? v : null);
  return { name, version: orNull(version), purl: orNull(purl), type: orNull(type), licenses: orNull(licenses), ref: orNull(ref) };
}
