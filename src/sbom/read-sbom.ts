import { AppError, type ErrorDetail } from '../errors.js';
import { componentKey, componentText } from './component-rows.js';
import { validateCycloneDx } from './cyclonedx-validator.js';
import { detectFormat, type DetectedFormat } from './detect-format.js';
import { checkDocumentLimits } from './document-limits.js';
import type { Json } from './json-checks.js';
import { normaliseCycloneDx, normaliseSpdx2, normaliseSpdx3, type NormalisedSbom } from './normalise.js';
import { parseDocument } from './parse-document.js';
import { validateSpdx2 } from './spdx2-validator.js';
import { validateSpdx3 } from './spdx3-validator.js';

/** Format detection, validation and normalisation of a parsed document: pure, no I/O. */
export function readSbomDocument(document: unknown, mayHoldNul = true): { detected: DetectedFormat; normalised: NormalisedSbom } {
  checkDocumentLimits(document, mayHoldNul);
  const detected = detectFormat(document);
  const doc = document as Json;
  let problems: ErrorDetail[];
  let normalise: (doc: Json) => NormalisedSbom;
  if (detected.kind === 'cyclonedx') [problems, normalise] = [validateCycloneDx(detected.specVersion, doc), normaliseCycloneDx];
  else if (detected.kind === 'spdx2') [problems, normalise] = [validateSpdx2(detected.specVersion, doc), normaliseSpdx2];
  else [problems, normalise] = [validateSpdx3(doc), normaliseSpdx3];
  if (problems.length > 0) {
    const name = detected.format === 'cyclonedx' ? 'CycloneDX' : 'SPDX';
    throw new AppError('invalid_sbom', `the document is not valid ${name} ${detected.specVersion}`, problems);
  }
  return { detected, normalised: normalise(doc) };
}

/**
 * A read document in compact columns, cheap to hand from a worker to the event loop: one
 * string of every component's text (component-rows.ts) with the offsets where each starts,
 * and one string of their keys (KEY_LENGTH characters each), in document order.
 */
export interface SbomReading {
  detected: DetectedFormat;
  releaseVersion: string | null;
  count: number;
  texts: string;
  /** count + 1 offsets into `texts`. */
  offsets: Uint32Array;
  keys: string;
}

/** The document's bytes → its reading, or an AppError (invalid_json, unsupported_sbom_format, invalid_sbom). */
export function readSbomBytes(bytes: Uint8Array): SbomReading {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // JSON holds a NUL only as the escape \u0000: without one, no string needs checking for it.
  const mayHoldNul = buffer.includes('\\u0000');
  const { detected, normalised } = readSbomDocument(parseDocument(buffer), mayHoldNul);
  const count = normalised.components.length;
  const parts: string[] = new Array(count);
  const keys: string[] = new Array(count);
  const offsets = new Uint32Array(count + 1);
  let at = 0;
  for (let i = 0; i < count; i++) {
    const text = componentText(normalised.components[i]!);
    parts[i] = text;
    keys[i] = componentKey(text);
    offsets[i] = at;
    at += text.length;
  }
  offsets[count] = at;
  return { detected, releaseVersion: normalised.releaseVersion, count, texts: parts.join(''), offsets, keys: keys.join('') };
}
