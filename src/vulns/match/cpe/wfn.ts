// A CPE name as NISTIR 7695 models it: a well-formed name (WFN) of eleven attributes, each ANY,
// NA or a value. Values are kept unquoted and lower-cased (names compare case-insensitively, NISTIR
// 7696 section 6.1), with their unquoted wildcards held apart at either end, so that no caller
// ever has to tell `\*` from `*` again.

export const ATTRIBUTES = [
  'part',
  'vendor',
  'product',
  'version',
  'update',
  'edition',
  'language',
  'sw_edition',
  'target_sw',
  'target_hw',
  'other',
] as const;
export type Attribute = (typeof ATTRIBUTES)[number];

/**
 * An attribute's value. `text` is the literal part (unquoted, lower-cased); `before` and `after`
 * are the unquoted wildcards at its ends: '' (none), '*' (any run of characters) or one or more
 * '?' (up to that many characters, as the NISTIR 7696 reference implementation reads them).
 */
export type CpeValue = { kind: 'any' } | { kind: 'na' } | { kind: 'value'; text: string; before: string; after: string };

export type Wfn = Readonly<Record<Attribute, CpeValue>>;

export const ANY: CpeValue = Object.freeze({ kind: 'any' });
export const NA: CpeValue = Object.freeze({ kind: 'na' });

/** A literal value without wildcards. */
export function literal(text: string): CpeValue {
  return { kind: 'value', text: text.toLowerCase(), before: '', after: '' };
}

export function hasWildcards(value: CpeValue): boolean {
  return value.kind === 'value' && (value.before !== '' || value.after !== '');
}

/** A WFN whose attributes not given are ANY. */
export function wfnOf(values: Partial<Record<Attribute, CpeValue>>): Wfn {
  const out = {} as Record<Attribute, CpeValue>;
  for (const attribute of ATTRIBUTES) out[attribute] = values[attribute] ?? ANY;
  return Object.freeze(out);
}

export function withValues(wfn: Wfn, values: Partial<Record<Attribute, CpeValue>>): Wfn {
  return wfnOf({ ...wfn, ...values });
}

const UNQUOTED_IN_WFN = /^[a-z0-9_]$/;
const UNQUOTED_IN_FS = /^[a-z0-9_.-]$/;

function quote(text: string, unquoted: RegExp): string {
  let out = '';
  for (const c of text) out += unquoted.test(c) ? c : `\\${c}`;
  return out;
}

/** The value as NISTIR 7695 writes it in a WFN: ANY, NA, or the quoted string (`8\.0\.6001`). */
export function wfnString(value: CpeValue): string {
  if (value.kind === 'any') return 'ANY';
  if (value.kind === 'na') return 'NA';
  return value.before + quote(value.text, UNQUOTED_IN_WFN) + value.after;
}

function fsValue(value: CpeValue): string {
  if (value.kind === 'any') return '*';
  if (value.kind === 'na') return '-';
  // a literal "-" alone must stay quoted, or it would read back as NA
  const body = value.text === '-' && value.before === '' && value.after === '' ? '\\-' : quote(value.text, UNQUOTED_IN_FS);
  return value.before + body + value.after;
}

/** The CPE 2.3 formatted string binding of a WFN (NISTIR 7695 section 6.2.2). */
export function formatCpe(wfn: Wfn): string {
  return `cpe:2.3:${ATTRIBUTES.map((attribute) => fsValue(wfn[attribute])).join(':')}`;
}

/** The value's literal text, or null for ANY and NA (for table look-ups and messages). */
export function textOf(value: CpeValue): string | null {
  return value.kind === 'value' ? value.text : null;
}
