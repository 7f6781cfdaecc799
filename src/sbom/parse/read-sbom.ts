import { AppError, type ErrorDetail } from '../../errors.js';
import {
  type ComponentFields,
  componentFields,
  componentTexts,
  expandAbbreviated,
  expandCompact,
  KEY_LENGTH,
  writeComponentKey,
} from './component-rows.js';
import { validateCycloneDx } from './cyclonedx-validator.js';
import { detectFormat, type DetectedFormat } from './detect-format.js';
import { jsonBytesMayHoldUnstorable } from '../../shared/storable-text.js';
import { checkDocumentLimits } from './document-limits.js';
import type { Json } from './json-checks.js';
import { type ComponentSink, type Normaliser, normaliseCycloneDx, normaliseSpdx2, normaliseSpdx3 } from './normalise.js';
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
): { detected: DetectedFormat; releaseVersion: string | null } {
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
  return { detected, releaseVersion: normalise(doc, emit) };
}

/**
 * A read document in compact columns of bytes, which a worker hands to the event loop without a
 * copy (and the event loop never has to build a string per component it already stores):
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
export interface SbomReading {
  detected: DetectedFormat;
  releaseVersion: string | null;
  count: number;
  texts: Uint8Array;
  /** count + 1 byte offsets into `texts`. */
  offsets: Uint32Array;
  keys: Uint8Array;
  purlNameDiffers: Uint8Array;
  forms: Uint8Array;
}

/** Bytes from one key's start to the next's in `SbomReading.keys` (the key and a comma). */
export const KEY_STRIDE = KEY_LENGTH + 1;

/** The i-th component's text. */
export function textAt(reading: SbomReading, i: number): string {
  return Buffer.from(reading.texts.buffer, reading.texts.byteOffset, reading.texts.byteLength).toString(
    'utf8',
    reading.offsets[i],
    reading.offsets[i + 1],
  );
}

/** The i-th component's fields as the document gave them (its text as stored, expanded). */
export function fieldsAt(reading: SbomReading, i: number): ComponentFields {
  const fields = componentFields(textAt(reading, i));
  const forms = reading.forms[i]!;
  return { ...fields, ...expandAbbreviated({ ...fields, forms }), ...expandCompact({ ...fields, forms }) };
}

/** The keys of components `from` to `to` (exclusive) as a comma-separated list; the one key when `to` is from + 1. */
export function keysBetween(reading: SbomReading, from: number, to: number): string {
  return Buffer.from(reading.keys.buffer, reading.keys.byteOffset, reading.keys.byteLength).toString(
    'latin1',
    from * KEY_STRIDE,
    to * KEY_STRIDE - 1,
  );
}

/** The document's bytes (in one buffer or in the chunks they arrived in) → its reading, or an AppError (invalid_json, unsupported_sbom_format, invalid_sbom). */
export function readSbomBytes(bytes: Uint8Array | readonly Uint8Array[]): SbomReading {
  const buffer = Array.isArray(bytes)
    ? Buffer.concat(bytes as readonly Uint8Array[])
    : Buffer.from((bytes as Uint8Array).buffer, (bytes as Uint8Array).byteOffset, (bytes as Uint8Array).byteLength);
  // Each component's stored text and key are all that is kept of it (normalise.ts: nothing else
  // outlives the call). The keys go into a column grown as needed (their count is known only at
  // the end), so the text as sent is dropped as soon as its key is written.
  const parts: string[] = [];
  const differs: number[] = [];
  const forms: number[] = [];
  let keys = new Uint8Array(1024 * KEY_STRIDE).fill(0x2c); // ','
  const document = parseDocument(buffer);
  // JSON holds a NUL or a lone surrogate only as an escape: without one, no string needs checking.
  const mayHoldUnstorable = jsonBytesMayHoldUnstorable(buffer);
  const { detected, releaseVersion } = readSbomDocument(document, mayHoldUnstorable, (c) => {
    const i = parts.length;
    if ((i + 1) * KEY_STRIDE > keys.length) {
      const grown = new Uint8Array(keys.length * 2).fill(0x2c, keys.length);
      grown.set(keys);
      keys = grown;
    }
    const texts = componentTexts(c);
    writeComponentKey(texts.text, keys, i * KEY_STRIDE);
    parts.push(texts.stored);
    differs.push(texts.purlNameDiffers);
    forms.push(texts.forms);
  });
  const count = parts.length;
  // Each column in an ArrayBuffer of its own, so it can move to another thread.
  keys = keys.slice(0, Math.max(0, count * KEY_STRIDE - 1));
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
  return {
    detected,
    releaseVersion,
    count,
    texts,
    offsets,
    keys,
    purlNameDiffers: Uint8Array.from(differs),
    forms: Uint8Array.from(forms),
  };
}
