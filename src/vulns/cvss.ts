import calculator from 'ae-cvss-calculator';

// CVSS base scores computed from the vector with a library (FIRST's formulas, v3.0, v3.1 and
// v4.0): a feed's own score field is never trusted, and a vector that does not parse gives none.

export interface CvssScore {
  readonly score: number;
  readonly vector: string;
}

const VERSIONS: Array<[RegExp, (vector: string) => { calculateScores(): { base?: number } }]> = [
  [/^CVSS:4\.0\//, (v) => new calculator.Cvss4P0(v)],
  [/^CVSS:3\.1\//, (v) => new calculator.Cvss3P1(v)],
  [/^CVSS:3\.0\//, (v) => new calculator.Cvss3P0(v)],
];

/**
 * Scores of vectors computed already. A feed repeats a few thousand vectors over its hundreds of
 * thousands of records, and the library builds a few kilobytes of objects per vector (in an
 * import of 200,000 records, 680 of the 4,200 MB the main thread allocated): each is computed
 * once while it is remembered. Only what looks like a vector is remembered (at most 512
 * characters of the vector alphabet), so a feed's long strings cannot fill it; bounded, and
 * forgotten all at once when full.
 */
const scored = new Map<string, CvssScore | null>();
export const CVSS_MEMO_SIZE = 10_000;
const MAX_VECTOR = 512;
const VECTOR_CHARACTERS = /^[A-Za-z0-9.:/]+$/;

/** How many vectors are remembered (tests). */
export const rememberedVectors = (): number => scored.size;

/** The base score of a CVSS v3.0, v3.1 or v4.0 vector, or null when it is not one. */
export function cvssBaseScore(vector: string): CvssScore | null {
  if (vector.length > MAX_VECTOR || !VECTOR_CHARACTERS.test(vector)) return null;
  const version = VERSIONS.find(([prefix]) => prefix.test(vector));
  if (!version) return null;
  let score = scored.get(vector);
  if (score === undefined) {
    if (scored.size >= CVSS_MEMO_SIZE) scored.clear();
    score = computeBaseScore(vector, version[1]);
    scored.set(vector, score);
  }
  return score;
}

function computeBaseScore(vector: string, parse: (vector: string) => { calculateScores(): { base?: number } }): CvssScore | null {
  try {
    const base = parse(vector).calculateScores().base;
    return typeof base === 'number' && Number.isFinite(base) && base >= 0 && base <= 10 ? Object.freeze({ score: base, vector }) : null;
  } catch {
    return null;
  }
}

/** The highest base score among OSV severity entries (`CVSS_V3`, `CVSS_V4` vectors), with its vector. */
export function highestCvss(severity: ReadonlyArray<{ type: string; score: string }>): CvssScore | null {
  let best: CvssScore | null = null;
  for (const s of severity) {
    if (!/^CVSS_V[34]$/.test(s.type)) continue;
    const scored = cvssBaseScore(s.score);
    if (scored && (!best || scored.score > best.score)) best = scored;
  }
  return best;
}
