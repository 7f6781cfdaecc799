import calculator from 'ae-cvss-calculator';

// CVSS base scores computed from the vector with a library (FIRST's formulas, v3.0, v3.1 and
// v4.0): a feed's own score field is never trusted, and a vector that does not parse gives none.

export interface CvssScore {
  score: number;
  vector: string;
}

const VERSIONS: Array<[RegExp, (vector: string) => { calculateScores(): { base?: number } }]> = [
  [/^CVSS:4\.0\//, (v) => new calculator.Cvss4P0(v)],
  [/^CVSS:3\.1\//, (v) => new calculator.Cvss3P1(v)],
  [/^CVSS:3\.0\//, (v) => new calculator.Cvss3P0(v)],
];

/** The base score of a CVSS v3.0, v3.1 or v4.0 vector, or null when it is not one. */
export function cvssBaseScore(vector: string): CvssScore | null {
  const version = VERSIONS.find(([prefix]) => prefix.test(vector));
  if (!version || vector.length > 512 || !/^[A-Za-z0-9.:/]+$/.test(vector)) return null;
  try {
    const base = version[1](vector).calculateScores().base;
    return typeof base === 'number' && Number.isFinite(base) && base >= 0 && base <= 10 ? { score: base, vector } : null;
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
