import { AppError, type ErrorDetail } from '../../errors.js';
import { checkAllProfiles, type ConformanceProfileId, type ConformanceReport } from '../conformance/conformance.js';
import { notConformantError } from '../conformance/policy.js';
import {
  type ComponentFields,
  componentTexts,
  expandAbbreviated,
  expandCompact,
  KEY_LENGTH,
  storedFields,
  writeComponentKey,
} from './component-rows.js';
import { validateCycloneDx } from './cyclonedx-validator.js';
import { detectFormat, type DetectedFormat } from './detect-format.js';
import { jsonBytesMayHoldUnstorable } from '../../shared/storable-text.js';
import { checkDocumentLimits } from './document-limits.js';
import type { Json } from './json-checks.js';
import {
  type ComponentSink,
  type DocumentSubject,
  type NormalisedComponent,
  type Normaliser,
  normaliseCycloneDx,
  normaliseSpdx2,
  normaliseSpdx3,
} from './normalise.js';
import { parseDocument } from './parse-document.js';
import { validateSpdx2 } from './spdx2-validator.js';
import { validateSpdx3 } from './spdx3-validator.js';

/**
 * Format detection, validation and normalisation of a parsed document, with no I/O. Each
 * component goes to `emit` as it is normalised, in document order; the answer is the format and
 * the release version the document names.
 */
export function readSbomDocument(
  document: unknown,
  mayHoldUnstorable: boolean,
  emit: ComponentSink,
  require?: ConformanceProfileId,
): { detected: DetectedFormat; conformance: ConformanceReport[] } & DocumentSubject {
  checkDocumentLimits(document, mayHoldUnstorable);
  const detected = detectFormat(document);
  const doc = document as Json;
  let problems: ErrorDetail[];
  let normalise: Normaliser;
  if (detected.kind === 'cyclonedx') [problems, normalise] = [validateCycloneDx(detected.specVersion, doc), normaliseCycloneDx];
  else if (detected.kind === 'spdx2') [problems, normalise] = [validateSpdx2(detected.specVersion, doc), normaliseSpdx2];
  else [problems, normalise] = [validateSpdx3(doc), normaliseSpdx3];
  if (problems.length > 0) {
    const name = detected.format === 'cyclonedx' ? 'CycloneDX' : 'SPDX';
    throw new AppError('invalid_sbom', `the document is not valid ${name} ${detected.specVersion}`, problems);
  }
  // On the document as received (full fidelity), before normalising drops what it does not store.
  const conformance = checkAllProfiles(doc, detected);
  // Refused before a single component is emitted: a document the organisation's policy refuses leaves nothing stored.
  const required = require === undefined ? undefined : conformance.find((r) => r.profile === require);
  if (required && !required.conforms) throw notConformantError(required);
  return { detected, conformance, ...normalise(doc, emit) };
}

/**
 * Components of a read document in compact columns of bytes, which a worker hands to the event
 * loop without a copy (and the event loop never has to build a string per component it already
 * stores):
 * - `texts`: every component's text as stored (componentTexts in component-rows.ts: its purl
 *   and ref abbreviated) in UTF-8, one after another; the i-th runs from byte `offsets[i]` to
 *   `offsets[i + 1]`;
 * - `keys`: their keys (of the text as sent, componentText) in ASCII, separated by commas, so
 *   the i-th starts at byte i × KEY_STRIDE and any run of them is a comma-separated list as it
 *   stands;
 * - `purlNameDiffers`: 1 for a component whose purl names another package than its name does
 *   (component-rows.ts), else 0;
 * - `forms`: how its purl and ref are stored (FORMS in component-rows.ts).
 * All in document order.
 */
export interface ReadingColumns {
  count: number;
  texts: Uint8Array;
  /** count + 1 byte offsets into `texts`. */
  offsets: Uint32Array;
  keys: Uint8Array;
  purlNameDiffers: Uint8Array;
  forms: Uint8Array;
}

/**
 * What a document says of itself (its subject's release version and CPEs), how many components it
 * lists, and how it conforms: one report per profile of CONFORMANCE_PROFILES, in that order.
 */
export interface ReadingSummary extends DocumentSubject {
  detected: DetectedFormat;
  count: number;
  conformance: ConformanceReport[];
}

/** A whole document read: its summary and all of its components' columns. */
export interface SbomReading extends ReadingSummary, ReadingColumns {}

/** The components of a document from its `first` on (document order), as read in slices (readSbomSlices). */
export interface ReadingSlice extends ReadingColumns {
  first: number;
}

/** Bytes from one key's start to the next's in `SbomReading.keys` (the key and a comma). */
export const KEY_STRIDE = KEY_LENGTH + 1;

/** The i-th component's text. */
export function textAt(reading: ReadingColumns, i: number): string {
  return Buffer.from(reading.texts.buffer, reading.texts.byteOffset, reading.texts.byteLength).toString(
    'utf8',
    reading.offsets[i],
    reading.offsets[i + 1],
  );
}

/** The i-th component's fields as the document gave them (its text as stored, expanded). */
export function fieldsAt(reading: ReadingColumns, i: number): ComponentFields {
  const fields = storedFields(textAt(reading, i));
  const forms = reading.forms[i]!;
  return { ...fields, ...expandAbbreviated({ ...fields, forms }), ...expandCompact({ ...fields, forms }) };
}

/** The keys of components `from` to `to` (exclusive) as a comma-separated list; the one key when `to` is from + 1. */
export function keysBetween(reading: ReadingColumns, from: number, to: number): string {
  return Buffer.from(reading.keys.buffer, reading.keys.byteOffset, reading.keys.byteLength).toString(
    'latin1',
    from * KEY_STRIDE,
    to * KEY_STRIDE - 1,
  );
}

/** The document's bytes (in one buffer or in the chunks they arrived in) → its reading, or an AppError (invalid_json, unsupported_sbom_format, invalid_sbom). */
export function readSbomBytes(bytes: Uint8Array | readonly Uint8Array[]): SbomReading {
  let columns: ReadingColumns | undefined;
  const whole = { first: Number.POSITIVE_INFINITY, largest: Number.POSITIVE_INFINITY };
  const summary = readSbomSlices(
    bytes,
    (slice) => {
      columns = slice;
    },
    whole,
  );
  return { ...summary, ...columns! };
}

/**
 * Components per slice (readSbomSlices): the first small, so that its components can be stored
 * while the rest are read; each next one twice the last, up to the largest, so that a large
 * document is stored in a few transactions, not in hundreds.
 */
export const READING_SLICES = { first: 5_000, largest: 20_000 } as const;

/**
 * A slice is handed over before the end only while at most one in this many of its components
 * has a key below the largest key of the slices handed over before it. A key starts with its
 * name's first character and 16 bits of a digest of the name (component-rows.ts, namePrefix), so
 * the slices of a document listed by name, as SBOM tools write them, each land in a stretch of
 * the (org, key) index of their own but for the names of the character where one slice ends and
 * the next begins (a third of the second slice of a 100,000-component document whose names start
 * with ~20 letters), and their commits rewrite few pages twice. The slices of a shuffled
 * document, or of one whose names nearly all start alike (Go modules, say), would each land all
 * over the same stretch: 4–5 times the WAL of one commit for 100,000 new components on SQLite,
 * and slower. Such a document's remaining components go in one last slice.
 */
export const SLICE_OVERLAP_ONE_IN = 2;

/**
 * The document's bytes → its summary, or an AppError (invalid_json, unsupported_sbom_format,
 * invalid_sbom); its components go to `onSlice` a slice at a time as they are read (in document
 * order, of `sizes` components each while each lands in a stretch of keys of its own
 * (SLICE_OVERLAP_ONE_IN), then all the rest; one empty slice for a document of none). The
 * document is validated whole before the first slice: a slice is never of a document that is
 * refused.
 */
export function readSbomSlices(
  bytes: Uint8Array | readonly Uint8Array[],
  onSlice: (slice: ReadingSlice) => void,
  sizes: { first: number; largest: number } = READING_SLICES,
  require?: ConformanceProfileId,
): ReadingSummary {
  const buffer = Array.isArray(bytes)
    ? Buffer.concat(bytes as readonly Uint8Array[])
    : Buffer.from((bytes as Uint8Array).buffer, (bytes as Uint8Array).byteOffset, (bytes as Uint8Array).byteLength);
  const document = parseDocument(buffer);
  // JSON holds a NUL or a lone surrogate only as an escape: without one, no string needs checking.
  const mayHoldUnstorable = jsonBytesMayHoldUnstorable(buffer);
  const slice = new SliceBuilder();
  let size = sizes.first;
  let count = 0;
  // The largest name prefix (the keys' first 3 bytes) of the slices handed over so far.
  let handedUpTo = -1;
  const { detected, conformance, releaseVersion, subjectCpes, buildVerdicts } = readSbomDocument(
    document,
    mayHoldUnstorable,
    (c) => {
      slice.add(c, handedUpTo);
      count++;
      if (slice.count === size) {
        if (slice.below * SLICE_OVERLAP_ONE_IN > slice.count) size = Number.POSITIVE_INFINITY;
        else {
          handedUpTo = Math.max(handedUpTo, slice.largestPrefix);
          onSlice(slice.take(count - size));
          size = Math.min(2 * size, sizes.largest);
        }
      }
    },
    require,
  );
  if (slice.count > 0 || count === 0) onSlice(slice.take(count - slice.count));
  return { detected, releaseVersion, subjectCpes, buildVerdicts, count, conformance };
}

/**
 * The columns of components added one by one. Each component's stored text and key are all that
 * is kept of it (normalise.ts: nothing else outlives the call). The keys go into a column grown
 * as needed (their count is known only at the end), so the text as sent is dropped as soon as
 * its key is written.
 */
class SliceBuilder {
  #parts: string[] = [];
  #differs: number[] = [];
  #forms: number[] = [];
  #keys = new Uint8Array(1024 * KEY_STRIDE).fill(0x2c); // ','
  /** Components added whose name prefix was below the one given with them. */
  below = 0;
  /** The largest name prefix of the components added. */
  largestPrefix = -1;

  get count(): number {
    return this.#parts.length;
  }

  /** Adds `c`, counting it `below` when its name prefix (its key's first 3 bytes) is under `under`. */
  add(c: NormalisedComponent, under: number): void {
    const i = this.#parts.length;
    if ((i + 1) * KEY_STRIDE > this.#keys.length) {
      const grown = new Uint8Array(this.#keys.length * 2).fill(0x2c, this.#keys.length);
      grown.set(this.#keys);
      this.#keys = grown;
    }
    const texts = componentTexts(c);
    // The text starts with the name: the key's prefix is the name's.
    const prefix = writeComponentKey(texts.text, this.#keys, i * KEY_STRIDE);
    if (prefix < under) this.below++;
    if (prefix > this.largestPrefix) this.largestPrefix = prefix;
    this.#parts.push(texts.stored);
    this.#differs.push(texts.purlNameDiffers);
    this.#forms.push(texts.forms);
  }

  /** The components added since the last take, as the slice from `first` on; the builder starts over. */
  take(first: number): ReadingSlice {
    const parts = this.#parts;
    const count = parts.length;
    // Each column in an ArrayBuffer of its own, so it can move to another thread.
    const keys = this.#keys.slice(0, Math.max(0, count * KEY_STRIDE - 1));
    const offsets = new Uint32Array(count + 1);
    let at = 0;
    for (let i = 0; i < count; i++) {
      offsets[i] = at;
      at += Buffer.byteLength(parts[i]!);
    }
    offsets[count] = at;
    const texts = new Uint8Array(at);
    const textBytes = Buffer.from(texts.buffer);
    // Each text at its own offset: joining them first would build one more string as large as
    // all of them (~15 MB for 100,000 components, fresh memory each time).
    for (let i = 0; i < count; i++) textBytes.write(parts[i]!, offsets[i]!, 'utf8');
    const slice: ReadingSlice = {
      first,
      count,
      texts,
      offsets,
      keys,
      purlNameDiffers: Uint8Array.from(this.#differs),
      forms: Uint8Array.from(this.#forms),
    };
    this.#parts = [];
    this.#differs = [];
    this.#forms = [];
    this.below = 0;
    this.largestPrefix = -1;
    return slice;
  }
}
