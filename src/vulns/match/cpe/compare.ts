import { ATTRIBUTES, type Attribute, type CpeValue, hasWildcards, type Wfn } from './wfn.js';

// NISTIR 7696 name matching: the set relation of a source value to a target value (its table 6-2,
// in the order of the reference implementation's `compare`), and of two names, attribute by
// attribute. Here the source is always the NVD's criterion and the target the component.

export type Relation = 'EQUAL' | 'SUPERSET' | 'SUBSET' | 'DISJOINT' | 'UNDEFINED';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `*` matches any run of characters, a run of n `?` up to n of them (the reference's reading). */
function wildcardPattern(run: string): string {
  if (run === '') return '';
  return run === '*' ? '[\\s\\S]*' : `[\\s\\S]{0,${run.length}}`;
}

function matchesPattern(source: Extract<CpeValue, { kind: 'value' }>, target: string): boolean {
  const pattern = `^${wildcardPattern(source.before)}${escapeRegExp(source.text)}${wildcardPattern(source.after)}$`;
  return new RegExp(pattern).test(target);
}

/** The relation of the source value to the target value (both already lower-cased by the parser). */
export function compareValues(source: CpeValue, target: CpeValue): Relation {
  // a target holding wildcards is a set of names itself: NISTIR 7696 leaves the relation undefined
  if (hasWildcards(target)) return 'UNDEFINED';
  if (source.kind !== 'value' && source.kind === target.kind) return 'EQUAL';
  if (source.kind === 'any') return 'SUPERSET';
  if (target.kind === 'any') return 'SUBSET';
  if (source.kind === 'na' || target.kind === 'na') return 'DISJOINT';
  if (source.kind !== 'value' || target.kind !== 'value') return 'DISJOINT';
  if (!hasWildcards(source)) return source.text === target.text ? 'EQUAL' : 'DISJOINT';
  return matchesPattern(source, target.text) ? 'SUPERSET' : 'DISJOINT';
}

export function compareNames(source: Wfn, target: Wfn): Record<Attribute, Relation> {
  const out = {} as Record<Attribute, Relation>;
  for (const attribute of ATTRIBUTES) out[attribute] = compareValues(source[attribute], target[attribute]);
  return out;
}

const every = (relations: Record<Attribute, Relation>, allowed: Relation[]): boolean =>
  ATTRIBUTES.every((attribute) => allowed.includes(relations[attribute]));

/** NISTIR 7696 section 6.2, the four name relations: disjoint when any attribute is. */
export function isDisjoint(source: Wfn, target: Wfn): boolean {
  const relations = compareNames(source, target);
  return ATTRIBUTES.some((attribute) => relations[attribute] === 'DISJOINT');
}
export const isEqual = (source: Wfn, target: Wfn): boolean => every(compareNames(source, target), ['EQUAL']);
export const isSubset = (source: Wfn, target: Wfn): boolean => every(compareNames(source, target), ['SUBSET', 'EQUAL']);
export const isSuperset = (source: Wfn, target: Wfn): boolean => every(compareNames(source, target), ['SUPERSET', 'EQUAL']);

/**
 * The platform's reading of one attribute (firmware.md, "Matching a CVE record's
 * configurations"): the criterion covers the component's value (`yes`), excludes it (`no`), or
 * cannot tell, because the component did not say (its ANY against the criterion's value or NA,
 * NISTIR 7696's SUBSET) or holds a pattern. What "cannot tell" means is the caller's: for the
 * component's own vulnerable entry it is no match; for another term of an AND it is undecided.
 */
export function covers(criterion: CpeValue, component: CpeValue): 'yes' | 'no' | 'undecided' {
  const relation = compareValues(criterion, component);
  if (relation === 'EQUAL' || relation === 'SUPERSET') return 'yes';
  return relation === 'DISJOINT' ? 'no' : 'undecided';
}
