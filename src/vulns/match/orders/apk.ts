import { type VersionOrder, sign } from './order.js';

// Alpine's apk version order (apk-tools 3, src/version.c), written here because no maintained
// JavaScript package implements it. A version is number{.number}[letter]{_suffix[number]}[~hash][-rN],
// read token by token; each token may only follow the kinds before it in this list.
const Token = {
  InitialDigit: 0,
  Digit: 1,
  Letter: 2,
  Suffix: 3,
  SuffixNumber: 4,
  CommitHash: 5,
  RevisionNumber: 6,
  End: 7,
  Invalid: 8,
} as const;
type Token = (typeof Token)[keyof typeof Token];

/** Suffix ranks: _alpha < _beta < _pre < _rc < no suffix < _cvs < _svn < _git < _hg < _p. */
const SUFFIXES = ['alpha', 'beta', 'pre', 'rc', '', 'cvs', 'svn', 'git', 'hg', 'p'];
const NO_SUFFIX = SUFFIXES.indexOf('');

interface State {
  token: Token;
  text: string; // the token's characters, for string comparison
  number: bigint;
  suffix: number;
  at: number;
}

/** Reads the number at the cursor into the state; false when there is none. */
function readDigits(s: State, version: string): boolean {
  const digits = /^\d*/.exec(version.slice(s.at))![0];
  s.text = digits;
  s.number = digits === '' ? 0n : BigInt(digits);
  s.at += digits.length;
  return digits !== '';
}

/** The kind of the token at the cursor, read into the state; Invalid where it may not follow the previous one. */
function advance(s: State, version: string): Token {
  if (s.at >= version.length) return Token.End;
  const c = version[s.at]!;
  if (c >= 'a' && c <= 'z') {
    if (s.token > Token.Digit) return Token.Invalid;
    s.text = c;
    s.at++;
    return Token.Letter;
  }
  if (c === '.' || (c >= '0' && c <= '9')) {
    if (c === '.' && s.token > Token.Digit) return Token.Invalid;
    const kind = s.token <= Token.Digit ? Token.Digit : s.token === Token.Suffix ? Token.SuffixNumber : Token.Invalid;
    if (kind === Token.Invalid) return kind;
    if (c === '.') s.at++;
    return readDigits(s, version) ? kind : Token.Invalid;
  }
  if (c === '_') {
    if (s.token > Token.SuffixNumber) return Token.Invalid;
    const name = /^[a-z]*/.exec(version.slice(s.at + 1))![0];
    s.suffix = SUFFIXES.indexOf(name);
    if (name === '' || s.suffix < 0 || s.suffix === NO_SUFFIX) return Token.Invalid;
    s.text = name;
    s.at += 1 + name.length;
    return Token.Suffix;
  }
  if (c === '~') {
    const hash = /^[0-9a-f]*/.exec(version.slice(s.at + 1))![0];
    if (s.token >= Token.CommitHash || hash === '') return Token.Invalid;
    s.text = hash;
    s.at += 1 + hash.length;
    return Token.CommitHash;
  }
  if (c === '-') {
    if (s.token >= Token.RevisionNumber || version[s.at + 1] !== 'r') return Token.Invalid;
    s.at += 2;
    return readDigits(s, version) ? Token.RevisionNumber : Token.Invalid;
  }
  return Token.Invalid;
}

function next(s: State, version: string): void {
  s.token = advance(s, version);
}

function first(version: string): State {
  const s: State = { token: Token.InitialDigit, text: '', number: 0n, suffix: 0, at: 0 };
  if (!readDigits(s, version)) s.token = Token.Invalid;
  return s;
}

/** apk_blob_sort: bytes first, then the shorter one first. */
function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a.charCodeAt(i) < b.charCodeAt(i) ? -1 : 1;
  return sign(a.length - b.length);
}

function compareTokens(a: State, b: State): number {
  switch (a.token) {
    case Token.Digit:
      // a leading zero makes both sides compare as text, as Gentoo does (1.05 < 1.1)
      if (a.text[0] === '0' || b.text[0] === '0') return compareText(a.text, b.text);
      return sign(a.number - b.number);
    case Token.InitialDigit:
    case Token.SuffixNumber:
    case Token.RevisionNumber:
      return sign(a.number - b.number);
    case Token.Letter:
      return compareText(a.text, b.text);
    case Token.Suffix:
      return sign(a.suffix - b.suffix);
    default:
      return compareText(a.text, b.text);
  }
}

function compareVersions(left: string, right: string): number {
  const [a, b] = [first(left), first(right)];
  while (a.token === b.token && a.token < Token.End) {
    const r = compareTokens(a, b);
    if (r !== 0) return r;
    next(a, left);
    next(b, right);
  }
  if (a.token === b.token) return 0;
  // equal so far: the longer one is greater, unless what it has more of is a prerelease suffix
  if (a.token === Token.Suffix && a.suffix < NO_SUFFIX) return -1;
  if (b.token === Token.Suffix && b.suffix < NO_SUFFIX) return 1;
  return a.token > b.token ? -1 : b.token > a.token ? 1 : 0;
}

function validate(version: string): boolean {
  const s = first(version);
  while (s.token < Token.End) next(s, version);
  return s.token === Token.End;
}

/** apk-tools: apk_version_validate and apk_version_compare. */
export const apkOrder: VersionOrder = {
  valid: validate,
  compare: compareVersions,
};
