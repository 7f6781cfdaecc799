import { hash } from 'node:crypto';
import type { AbbreviatedPurl, AbbreviatedRef, CompactLicences, CompactType, ComponentsTable } from '../../db/schema.js';
import type { NormalisedComponent } from './normalise.js';

// A component is stored once per organisation, addressed by its normalised fields. Its "text"
// is those fields joined by NUL (which no stored string can hold: documents with NUL are
// rejected), absent values empty, and its CPEs last only when it has some (so the text, and the
// key, of every component without a CPE is what it was before CPEs were read: migration 018);
// its key is a digest of that text. Pure: used by the parse
// worker, the repository and the migration that moved the existing rows.

/**
 * A component's normalised fields as sent (licenses: their JSON array): what every reader of a
 * stored component gets (componentsRepo.byIds, fieldsAt), and what its key is made from.
 */
export interface ComponentFields {
  name: string;
  version: string | null;
  purl: string | null;
  type: string | null;
  licenses: string | null;
  ref: string | null;
  /** Its CPEs as the document gave them, newline-separated in its order (cpes.ts); null for none. */
  cpes: string | null;
}

/** The same fields as the components table stores them, encoded (abbreviate, compactTypeAndLicences); `forms` says how. */
export type StoredFields = Pick<ComponentsTable, 'name' | 'version' | 'purl' | 'type' | 'licenses' | 'ref' | 'cpes'>;

const SEP = '\u0000';

export function componentText(c: NormalisedComponent): string {
  // join builds the text flat in one go; a template literal built a rope of ten pieces, which
  // hashing and encoding then flattened into an eleventh (~2.5 MB more per 10,000 components).
  const text = [c.name, c.version ?? '', c.purl ?? '', c.type ?? '', licensesText(c.licenses), c.ref ?? ''].join(SEP);
  return withCpes(text, c.cpes);
}

/** `text` with the component's CPEs as its last field, when it has some. */
function withCpes(text: string, cpes: string | null | undefined): string {
  return cpes == null ? text : text + SEP + cpes;
}

/**
 * JSON.stringify(licenses) for a non-empty list, '' for none: each licence stringified on its
 * own and bracketed here, which skips JSON.stringify's walk of an array (~1 ms of the ~4 that
 * the texts of 10,000 components take).
 */
function licensesText(licenses: readonly string[]): string {
  if (licenses.length === 0) return '';
  let text = `[${JSON.stringify(licenses[0])}`;
  for (let i = 1; i < licenses.length; i++) text += `,${JSON.stringify(licenses[i])}`;
  return `${text}]`;
}

/**
 * componentText from a component's fields as sent (decoded: as componentsRepo.byIds and fieldsAt
 * give them; the stored columns are encoded, and their text would give another key).
 */
export function storedComponentText(f: Omit<ComponentFields, 'cpes'> & { cpes?: string | null }): string {
  return withCpes([f.name, f.version ?? '', f.purl ?? '', f.type ?? '', f.licenses ?? '', f.ref ?? ''].join(SEP), f.cpes);
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export const KEY_LENGTH = 22;

// A key is 16 bytes (22 characters of base64url): the first 3 its name's (namePrefix), the other
// 13 the first 104 bits of the SHA-256 of its text. Ordered by name first, the one unique index,
// (org, key), finds a stored component by its content and serves search by name through a range
// of keys (namedKeyRange; migration 016).
//
// Called once per component of every upload, so keys take the cheapest path: the one-shot hash
// straight to base64url (no Buffer in between). The name's 3 bytes are the key's first 4
// characters; the digest's first 17 characters are the next 17; the 22nd holds the top 2 bits of
// the digest's 18th character (the last 2 bits of its byte 13) and 4 zero bits. This table maps
// the digest's 18th character's code to the key's last character's.
const LAST_KEY_CHARACTER = new Uint8Array(128);
for (let i = 0; i < 64; i++) LAST_KEY_CHARACTER[BASE64URL.charCodeAt(i)] = BASE64URL.charCodeAt(i & 0b110000);

/** Characters of a key that hold its name's bytes. */
const NAME_CHARACTERS = 4;

/**
 * A digest of a component's name: FNV-1a over its UTF-16 code units, to its end or to its first
 * NUL (so a component's text, which starts with its name and a NUL, gives its name's), mixed by
 * murmur3's finaliser; 32 bits.
 */
function nameDigest(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) break;
    h = Math.imul(h ^ c, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The first 3 bytes of the keys of a component named as `text` (a name, or a component's text):
 * its first UTF-16 code unit (0xff for any past 0xfe, 0 for an empty name), then 16 bits of
 * nameDigest. The first byte keeps the index in the order SBOM tools list components (by name),
 * so the new components of a document land a stretch of the index at a time, which stays in the
 * writer's cache; the digest picks one name's keys out of those of its first character. Part of
 * the stored format: migration 016 holds a frozen copy (test/db/migration-016.test.ts).
 */
export function namePrefix(text: string): number {
  const first = text.length === 0 ? 0 : Math.min(text.charCodeAt(0), 0xff);
  return (first << 16) | (nameDigest(text) & 0xffff);
}

/** The key of a component's text (componentText: its name first), base64url. */
export function componentKey(text: string): string {
  const target = new Uint8Array(KEY_LENGTH);
  writeComponentKey(text, target, 0);
  return String.fromCharCode(...target);
}

/**
 * componentKey(text), written as ASCII at `at` of `target` (the parse worker's key column):
 * the same key without the two strings in between. Copied a character at a time: a Buffer
 * write is a call into C++ that cost more than the 22 characters (~2 ms per 10,000 keys).
 * Returns the name prefix the key starts with (namePrefix of the text).
 */
export function writeComponentKey(text: string, target: Uint8Array, at: number): number {
  const name = namePrefix(text);
  target[at] = BASE64URL.charCodeAt(name >>> 18);
  target[at + 1] = BASE64URL.charCodeAt((name >>> 12) & 63);
  target[at + 2] = BASE64URL.charCodeAt((name >>> 6) & 63);
  target[at + 3] = BASE64URL.charCodeAt(name & 63);
  const whole = hash('sha256', text, 'base64url');
  const digestCharacters = KEY_LENGTH - NAME_CHARACTERS - 1;
  for (let i = 0; i < digestCharacters; i++) target[at + NAME_CHARACTERS + i] = whole.charCodeAt(i);
  target[at + KEY_LENGTH - 1] = LAST_KEY_CHARACTER[whole.charCodeAt(digestCharacters)]!;
  return name;
}

/**
 * The keys of the components named `name` lie between these two (inclusive, as bytes): its
 * namePrefix followed by 13 bytes of 0x00, and by 13 of 0xff.
 */
export function namedKeyRange(name: string): [Buffer, Buffer] {
  const prefix = namePrefix(name);
  const low = Buffer.alloc(KEY_BYTES);
  low.writeUIntBE(prefix, 0, 3);
  const high = Buffer.alloc(KEY_BYTES, 0xff);
  high.writeUIntBE(prefix, 0, 3);
  return [low, high];
}

/**
 * The name a purl gives its package: the last segment of its path, without the version,
 * qualifiers and subpath, percent-decoded (`pkg:npm/%40babel/core@7.1.0` → `core`); null for text
 * with no path. A component whose own name is its purl's name (nearly all of those SBOM tools
 * write) is found by purl through its name; the others are listed in an index of their own
 * (migration 014).
 */
export function purlName(purl: string): string | null {
  // Called for every component of every upload: positions, not a regular expression and the
  // strings in between; decoded only when there is an escape to decode.
  let end = purl.indexOf('?');
  const hash = purl.indexOf('#');
  if (end === -1 || (hash !== -1 && hash < end)) end = hash;
  if (end === -1) end = purl.length;
  const slash = end === 0 ? -1 : purl.lastIndexOf('/', end - 1);
  if (slash === -1) return null;
  const at = purl.lastIndexOf('@', end - 1);
  const segment = purl.slice(slash + 1, at > slash ? at : end);
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** 1 when the component has a purl whose name (purlName) is not the component's name, else 0. */
export function purlNameDiffers(name: string, purl: string | null): 0 | 1 {
  return purl !== null && purlName(purl) !== name ? 1 : 0;
}

/**
 * How a component's purl and ref are stored (the `forms` column, migration 015). Most SBOM tools
 * write both around the component's "name@version" (purl pkg:npm/lodash@4.17.21, bom-ref
 * lodash@4.17.21 or pkg:npm/lodash@4.17.21?package-id=…), and many give the purl as the bom-ref:
 * stored whole, they were ~70 of the ~150 bytes of a row. A stored value holds ABBREVIATION_MARK
 * where it held "name@version", and a ref that is the purl is stored as the mark alone; `forms`
 * says which (a value that holds the mark itself is stored as it is, so every form is exact).
 * Readers get the values back in SQL (components.repo.ts: purlColumn, refColumn).
 *
 * Two more forms (typeLibrary, licenceBare) hold the commonest type and licence list in fewer
 * bytes: a type of "library" (most components of most documents) is stored empty, and a list of
 * one licence that JSON writes without an escape ('["MIT"]') as the licence alone ('MIT'); read
 * through typeColumn and licencesColumn. Rows stored before them hold both whole, with the bits
 * clear.
 */
export const FORMS = { purlAbbreviated: 1, refAbbreviated: 2, refIsPurl: 4, typeLibrary: 8, licenceBare: 16 } as const;

/** The type every component of that form had: stored empty (FORMS.typeLibrary). */
export const LIBRARY = 'library';

/**
 * The type and licences text of a component as stored, and the forms they take (FORMS.typeLibrary,
 * FORMS.licenceBare). `licences` is licensesText's: a list of one licence id that JSON writes as
 * it is (no quote, backslash or control character to escape) is '["' + id + '"]'.
 */
export function compactTypeAndLicences(
  type: string,
  licences: string,
  licenceList: readonly string[],
): {
  type: CompactType;
  licences: CompactLicences;
  forms: number;
} {
  let forms = 0;
  let storedType = type;
  let storedLicences = licences;
  if (type === LIBRARY) {
    storedType = '';
    forms |= FORMS.typeLibrary;
  }
  // An empty id stays whole: stored empty it would read back as no licence.
  if (licenceList.length === 1 && licenceList[0]!.length > 0 && licences.length === licenceList[0]!.length + 4) {
    storedLicences = licenceList[0]!;
    forms |= FORMS.licenceBare;
  }
  return { type: storedType as unknown as CompactType, licences: storedLicences as unknown as CompactLicences, forms };
}

export const ABBREVIATION_MARK = '\u0001';

/** `value` with the mark where it first holds `nameAtVersion`; null where that would not be exact. */
function markedAt(value: string, nameAtVersion: string): string | null {
  const at = value.indexOf(nameAtVersion);
  if (at === -1 || value.includes(ABBREVIATION_MARK)) return null;
  return value.slice(0, at) + ABBREVIATION_MARK + value.slice(at + nameAtVersion.length);
}

/** The purl and ref of `c` as stored, and their `forms` (`differs`: purlNameDiffers of c). */
export function abbreviate(
  c: Pick<NormalisedComponent, 'name' | 'version' | 'purl' | 'ref'>,
  differs: 0 | 1 = purlNameDiffers(c.name, c.purl),
): {
  purl: AbbreviatedPurl | null;
  ref: AbbreviatedRef | null;
  forms: number;
} {
  const { name, version, purl, ref } = c;
  // Casts, not storedWhole: this runs for every component of every upload.
  if (version === null || (purl === null && ref === null))
    return { purl: purl as unknown as AbbreviatedPurl | null, ref: ref as unknown as AbbreviatedRef | null, forms: 0 };
  const nameAtVersion = `${name}@${version}`;
  let forms = 0;
  // Only a purl that names the component's own package: the others are looked up by the purl as
  // stored (the partial purl index of migration 014).
  const storedPurl = purl !== null && differs === 0 ? markedAt(purl, nameAtVersion) : null;
  if (storedPurl !== null) forms |= FORMS.purlAbbreviated;
  let storedRef: string | null = null;
  if (ref !== null && ref === purl) {
    storedRef = ABBREVIATION_MARK;
    forms |= FORMS.refIsPurl;
  } else if (ref !== null) {
    storedRef = markedAt(ref, nameAtVersion);
    if (storedRef !== null) forms |= FORMS.refAbbreviated;
  }
  return {
    purl: (storedPurl ?? purl) as unknown as AbbreviatedPurl | null,
    ref: (storedRef ?? ref) as unknown as AbbreviatedRef | null,
    forms,
  };
}

type EncodedColumn = AbbreviatedPurl | AbbreviatedRef | CompactType | CompactLicences;

/**
 * `value` as a column of the components table holds it whole, its bit of `forms` clear: every
 * value of a row stored before migration 015, one that cannot be abbreviated exactly, and the
 * purl of a row whose purl names another package (purl_name_differs = 1), which the partial purl
 * index finds as sent. The one way to write or compare a stored column with plain text.
 */
export function storedWhole<T extends EncodedColumn>(value: string): T;
export function storedWhole<T extends EncodedColumn>(value: string | null): T | null;
export function storedWhole<T extends EncodedColumn>(value: string | null): T | null {
  return value as unknown as T | null;
}

/** An encoded column's text as stored, for its decoders alone. */
const encodedText = (value: EncodedColumn | null) => value as unknown as string | null;

/** The purl and ref as sent, from the stored columns (what purlColumn and refColumn do in SQL). */
export function expandAbbreviated(row: {
  name: string;
  version: string | null;
  purl: AbbreviatedPurl | null;
  ref: AbbreviatedRef | null;
  forms: number;
}): {
  purl: string | null;
  ref: string | null;
} {
  const unmarked = (value: string | null) => value!.replace(ABBREVIATION_MARK, () => `${row.name}@${row.version}`);
  const stored = { purl: encodedText(row.purl), ref: encodedText(row.ref) };
  const purl = row.forms & FORMS.purlAbbreviated ? unmarked(stored.purl) : stored.purl;
  const ref = row.forms & FORMS.refIsPurl ? purl : row.forms & FORMS.refAbbreviated ? unmarked(stored.ref) : stored.ref;
  return { purl, ref };
}

/** The type and licences as sent, from the stored columns (what typeColumn and licencesColumn do in SQL). */
export function expandCompact(row: { type: CompactType | null; licenses: CompactLicences | null; forms: number }): {
  type: string | null;
  licenses: string | null;
} {
  const licenses = encodedText(row.licenses);
  return {
    type: row.forms & FORMS.typeLibrary ? LIBRARY : encodedText(row.type) || null,
    licenses: row.forms & FORMS.licenceBare ? `["${licenses}"]` : licenses,
  };
}

/** What the parse worker keeps of a component: its text as sent (its key's), as stored, and its flags. */
export interface ComponentTexts {
  text: string;
  stored: string;
  forms: number;
  purlNameDiffers: 0 | 1;
}

/** componentText(c), the text as stored (abbreviate), and the flags of `c`, sharing what they can. */
export function componentTexts(c: NormalisedComponent): ComponentTexts {
  const version = c.version ?? '';
  const type = c.type ?? '';
  const licenses = licensesText(c.licenses);
  const text = withCpes([c.name, version, c.purl ?? '', type, licenses, c.ref ?? ''].join(SEP), c.cpes);
  const differs = purlNameDiffers(c.name, c.purl);
  const { purl, ref, forms: abbreviated } = abbreviate(c, differs);
  const compact = compactTypeAndLicences(type, licenses, c.licenses);
  const forms = abbreviated | compact.forms;
  const stored = forms === 0 ? text : withCpes([c.name, version, purl ?? '', compact.type, compact.licences, ref ?? ''].join(SEP), c.cpes);
  return { text, stored, forms, purlNameDiffers: differs };
}

/** Bytes of a key as stored: the 16 bytes its 22 base64url characters encode. */
export const KEY_BYTES = 16;

/**
 * The keys at `positions` of a base64url key column (KEY_LENGTH ASCII bytes every `stride`),
 * decoded to KEY_BYTES each, at `out[i × KEY_BYTES]` for the key at `positions[i]`.
 */
export function decodeKeys(column: Uint8Array, stride: number, positions: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(positions.length * KEY_BYTES);
  for (let i = 0; i < positions.length; i++) {
    let from = positions[i]! * stride;
    let to = i * KEY_BYTES;
    let bits = 0;
    let held = 0;
    for (let c = 0; c < KEY_LENGTH; c++) {
      held = (held << 6) | BASE64URL_VALUE[column[from++]!]!;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out[to++] = (held >> bits) & 0xff;
      }
    }
  }
  return out;
}

const BASE64URL_VALUE = new Uint8Array(128);
for (let i = 0; i < 64; i++) BASE64URL_VALUE[BASE64URL.charCodeAt(i)] = i;

/** The fields of a component's text as sent (componentText). */
export function componentFields(text: string): ComponentFields {
  const [name = '', version, purl, type, licenses, ref, cpes] = text.split(SEP);
  const orNull = (v: string | undefined) => (v ? v : null);
  return {
    name,
    version: orNull(version),
    purl: orNull(purl),
    type: orNull(type),
    licenses: orNull(licenses),
    ref: orNull(ref),
    cpes: orNull(cpes),
  };
}

/** The fields of a component's text as stored (componentTexts' `stored`): encoded, as the table holds them. */
export function storedFields(text: string): StoredFields {
  return componentFields(text) as unknown as StoredFields;
}
