import parseSpdxExpression from 'spdx-expression-parse';

// Licence values as TR-03183-2 wants them: SPDX licence identifiers or expressions (AND, OR,
// WITH an exception, parentheses, `+`), `LicenseRef-…` allowed. The identifiers are checked
// against the SPDX licence list that spdx-expression-parse ships (spdx-license-ids).

const NO_LICENCE = new Set(['NONE', 'NOASSERTION']);

// A document repeats a handful of licence values over thousands of components: each is parsed
// once per document-sized run of calls (bounded, so a hostile document cannot grow it forever).
const seen = new Map<string, string | null>();
const SEEN_MAX = 10_000;

/** Why `value` is not an SPDX licence identifier or expression, or null when it is one. */
export function licenceProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return 'an empty licence';
  const cached = seen.get(value);
  if (cached !== undefined) return cached;
  const problem = parseProblem(value.trim());
  if (seen.size >= SEEN_MAX) seen.clear();
  seen.set(value, problem);
  return problem;
}

function parseProblem(text: string): string | null {
  if (NO_LICENCE.has(text)) return `licence ${text}`;
  try {
    parseSpdxExpression(text);
    return null;
  } catch {
    return `licence ${quote(text)} is not an SPDX identifier or expression`;
  }
}

/** A value as a why quotes it: at most 60 characters, so that a licence text pasted whole stays readable. */
export function quote(text: string): string {
  const short = text.length > 60 ? `${text.slice(0, 57)}…` : text;
  return JSON.stringify(short);
}
