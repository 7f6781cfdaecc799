import { ANY, ATTRIBUTES, type Attribute, type CpeValue, NA, type Wfn, wfnOf } from './wfn.js';

// Reading CPE names: the 2.3 formatted string and the 2.2 URI (NISTIR 7695 sections 6.1.3 and
// 6.2.3), into the same WFN. Written here because no maintained JavaScript package reads both
// bindings with their escapes and wildcards.
//
// Two modes. `strict` is NISTIR 7695 itself, for the NVD's criteria: every character other than a
// letter, digit, `_`, `-` or `.` must be quoted, and `*` / `?` are wildcards at a value's ends.
// `lenient` is for the CPEs of real SBOMs (the spec's Readings): an unquoted character that NISTIR
// 7695 would quote (`+`, `!`, `~`, `/`…) is taken literally, missing trailing attributes are ANY;
// but an unquoted `*` or `?` anywhere but a whole-value `*` makes the CPE invalid, since a
// component names one thing and NISTIR 7696 can match no target that holds a wildcard.

export type CpeMode = 'strict' | 'lenient';
export type CpeParse = { ok: true; wfn: Wfn } | { ok: false; error: string };

type Piece = { wild: '*' | '?' } | { char: string };

const PLAIN_FS = /^[A-Za-z0-9_.-]$/;
const PLAIN_URI = /^[A-Za-z0-9_.~-]$/;
// printable ASCII without the space: what a CPE may hold at all
const PRINTABLE = /^[\x21-\x7e]$/;
// the characters a 2.2 URI may percent-encode (NISTIR 7695 section 6.1.3.2, "decode")
const URI_ENCODED = /^[!-,/:-@[-^`{-~]$/;

class CpeError extends Error {}

/** Reads a CPE 2.3 formatted string or a CPE 2.2 URI. */
export function parseCpe(text: string, mode: CpeMode): CpeParse {
  const input = mode === 'lenient' ? text.trim() : text;
  if (/^cpe:2\.3:/i.test(input)) return parseFormattedString(input, mode);
  if (/^cpe:\//i.test(input)) return parseUri(input, mode);
  return { ok: false, error: 'not a CPE name: it starts with neither "cpe:2.3:" nor "cpe:/"' };
}

function attempt(read: () => Wfn): CpeParse {
  try {
    return { ok: true, wfn: read() };
  } catch (error) {
    if (error instanceof CpeError) return { ok: false, error: error.message };
    throw error;
  }
}

/** The pieces as a value: wildcards only as one `*` or a run of `?` at either end. */
function valueOfPieces(pieces: Piece[], attribute: Attribute, mode: CpeMode): CpeValue {
  const isWild = (p: Piece): p is { wild: '*' | '?' } => 'wild' in p;
  const wilds = pieces.filter(isWild).map((p) => p.wild);
  if (wilds.length === 1 && pieces.length === 1 && wilds[0] === '*') return ANY;
  if (wilds.length > 0 && mode === 'lenient')
    throw new CpeError(`${attribute}: an unquoted "${wilds[0]}" is a wildcard, and a component's CPE names one thing`);
  let start = 0;
  while (start < pieces.length && isWild(pieces[start]!)) start++;
  let end = pieces.length;
  while (end > start && isWild(pieces[end - 1]!)) end--;
  const before = wilds.slice(0, start).join('');
  const after = pieces
    .slice(end)
    .map((p) => (p as { wild: string }).wild)
    .join('');
  const body = pieces.slice(start, end);
  if (body.some(isWild)) throw new CpeError(`${attribute}: "*" and "?" may only start or end a value`);
  for (const run of [before, after])
    if (run !== '' && run !== '*' && !/^\?+$/.test(run))
      throw new CpeError(`${attribute}: a value may start or end with one "*" or with "?"s`);
  const text = body.map((p) => (p as { char: string }).char).join('');
  if (text === '' && (before.includes('*') || after !== '')) throw new CpeError(`${attribute}: a value of wildcards alone is "*" or "?"s`);
  return { kind: 'value', text: text.toLowerCase(), before, after };
}

function checkPart(value: CpeValue): void {
  if (value.kind === 'value' && (value.before !== '' || value.after !== '' || !['a', 'o', 'h'].includes(value.text)))
    throw new CpeError(`part: "${value.text}" is none of a, o, h`);
}

/** Splits a formatted string on the colons that no backslash quotes. */
function splitFormatted(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      current += c + text[i + 1];
      i++;
    } else if (c === ':') {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

function formattedValue(raw: string, attribute: Attribute, mode: CpeMode): CpeValue {
  if (raw === '') {
    if (mode === 'lenient') return ANY;
    throw new CpeError(`${attribute} is empty`);
  }
  if (raw === '*') return ANY;
  if (raw === '-') return NA;
  const pieces: Piece[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (!PRINTABLE.test(c)) throw new CpeError(`${attribute}: ${JSON.stringify(c)} is not a printable ASCII character`);
    if (c === '\\') {
      if (i + 1 >= raw.length) throw new CpeError(`${attribute}: a backslash ends the value`);
      pieces.push({ char: raw[++i]! });
    } else if (c === '*' || c === '?') pieces.push({ wild: c });
    else if (PLAIN_FS.test(c) || mode === 'lenient') pieces.push({ char: c });
    else throw new CpeError(`${attribute}: "${c}" must be quoted ("\\${c}")`);
  }
  return valueOfPieces(pieces, attribute, mode);
}

/** A CPE 2.3 formatted string, `cpe:2.3:part:vendor:product:version:update:…` (11 attributes). */
export function parseFormattedString(text: string, mode: CpeMode): CpeParse {
  return attempt(() => {
    if (!/^cpe:2\.3:/i.test(text)) throw new CpeError('a CPE 2.3 name starts with "cpe:2.3:"');
    const parts = splitFormatted(text.slice('cpe:2.3:'.length));
    if (parts.length > ATTRIBUTES.length || (mode === 'strict' && parts.length < ATTRIBUTES.length))
      throw new CpeError(`a CPE 2.3 name has ${ATTRIBUTES.length} attributes, this one ${parts.length}`);
    const values: Partial<Record<Attribute, CpeValue>> = {};
    parts.forEach((raw, i) => {
      values[ATTRIBUTES[i]!] = formattedValue(raw, ATTRIBUTES[i]!, mode);
    });
    checkPart(values.part!);
    return wfnOf(values);
  });
}

function uriValue(raw: string, attribute: Attribute, mode: CpeMode): CpeValue {
  if (raw === '') return ANY;
  if (raw === '-') return NA;
  const pieces: Piece[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '%') {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new CpeError(`${attribute}: "%${hex}" is not a percent-encoding`);
      const code = Number.parseInt(hex, 16);
      const decoded = String.fromCharCode(code);
      if (code === 1) pieces.push({ wild: '?' });
      else if (code === 2) pieces.push({ wild: '*' });
      else if (URI_ENCODED.test(decoded)) pieces.push({ char: decoded });
      else throw new CpeError(`${attribute}: "%${hex}" is not a character a CPE 2.2 URI encodes`);
      i += 2;
    } else if (!PRINTABLE.test(c)) throw new CpeError(`${attribute}: ${JSON.stringify(c)} is not a printable ASCII character`);
    else if (c === '*' || c === '?') pieces.push({ wild: c });
    else if (PLAIN_URI.test(c) || mode === 'lenient') pieces.push({ char: c });
    else throw new CpeError(`${attribute}: "${c}" must be percent-encoded in a CPE 2.2 URI`);
  }
  return valueOfPieces(pieces, attribute, mode);
}

/** A CPE 2.2 URI, `cpe:/part:vendor:product:version:update:edition:language`; `~` packs the 2.3 editions. */
export function parseUri(text: string, mode: CpeMode): CpeParse {
  return attempt(() => {
    if (!/^cpe:\//i.test(text)) throw new CpeError('a CPE 2.2 URI starts with "cpe:/"');
    const parts = text.slice('cpe:/'.length).split(':');
    if (parts.length > 7) throw new CpeError(`a CPE 2.2 URI has at most 7 components, this one ${parts.length}`);
    const names: Attribute[] = ['part', 'vendor', 'product', 'version', 'update', 'edition', 'language'];
    const values: Partial<Record<Attribute, CpeValue>> = {};
    parts.forEach((raw, i) => {
      if (names[i] === 'edition' && raw.startsWith('~')) Object.assign(values, unpackEdition(raw, mode));
      else values[names[i]!] = uriValue(raw, names[i]!, mode);
    });
    checkPart(values.part ?? ANY);
    return wfnOf(values);
  });
}

/** `~edition~sw_edition~target_sw~target_hw~other` (NISTIR 7695 section 6.1.3.3, "unpack"). */
function unpackEdition(packed: string, mode: CpeMode): Partial<Record<Attribute, CpeValue>> {
  const fields = packed.slice(1).split('~');
  if (fields.length < 5) throw new CpeError('a packed edition holds five fields: ~edition~sw_edition~target_sw~target_hw~other');
  const names: Attribute[] = ['edition', 'sw_edition', 'target_sw', 'target_hw'];
  const values: Partial<Record<Attribute, CpeValue>> = {};
  names.forEach((name, i) => {
    values[name] = uriValue(fields[i]!, name, mode);
  });
  // whatever follows the fifth tilde is `other`, its own tildes included
  values.other = uriValue(fields.slice(4).join('~'), 'other', mode);
  return values;
}

/** A value written as NISTIR 7695 writes it inside a WFN (`8\.0\.6001`, `micro??`), or ANY / NA. */
export function parseWfnValue(text: string): CpeValue {
  if (text === 'ANY') return ANY;
  if (text === 'NA') return NA;
  return formattedValue(text, 'other', 'strict');
}
