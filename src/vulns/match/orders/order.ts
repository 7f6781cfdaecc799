/** An ecosystem's version order: which strings are versions, and how two of them sort. */
export interface VersionOrder {
  /** True when the ecosystem's own parser accepts the string as a version. */
  valid(v: string): boolean;
  /** Negative, zero or positive as a sorts before, with or after b; both must be valid. */
  compare(a: string, b: string): number;
}

/** -1, 0 or 1: the sign of a comparison, so that every order answers alike. */
export function sign(n: number | bigint): number {
  return n > 0 ? 1 : n < 0 ? -1 : 0;
}

/** Compares two strings by UTF-16 code units, as Java, Dart and C# ordinal comparison do. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
