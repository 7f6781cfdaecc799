import { covers } from './compare.js';
import type { ComponentIdentity } from './component-cpes.js';
import { type Criterion, type EntryResult, type Mode, noComparison } from './criterion.js';
import { readComponentVersion, versionAgainst } from './decorations.js';
import type { Comparison, VersionCheck } from './evidence.js';
import { compareRead, compareUpstream, readUpstream, releaseOf, withUpdate } from './upstream-version.js';
import { hasWildcards, literal, textOf, type Wfn } from './wfn.js';

// The version and update attributes of a `cpeMatch` entry against a component (firmware.md,
// "Versions" and Readings): ranges under the upstream order, an exact version equal under it, the
// update as the Readings say, NA versions conditional, ANY without a range unbounded.

type Verdict = 'yes' | 'no' | 'undecided';

/** The criterion's update against the component's: ANY any; NA only none (ANY or NA); a value only it. */
function updateVerdict(criterion: Wfn, identity: ComponentIdentity): Verdict {
  const [wanted, has] = [criterion.update, identity.wfn.update];
  if (wanted.kind === 'any') return 'yes';
  if (wanted.kind === 'na') return has.kind === 'value' ? 'no' : 'yes';
  return covers(wanted, has);
}

const BOUNDS = [
  ['start_including', '>='],
  ['start_excluding', '>'],
  ['end_including', '<='],
  ['end_excluding', '<'],
] as const;

function holds(op: VersionCheck['op'], order: -1 | 0 | 1): boolean {
  return op === '>=' ? order >= 0 : op === '>' ? order > 0 : op === '<=' ? order <= 0 : op === '<' ? order < 0 : order === 0;
}

export function matchVersion(criterion: Criterion, wanted: Wfn, identity: ComponentIdentity, mode: Mode): EntryResult {
  const base = noComparison(identity);
  // the component did not say: no match for its own entry, an open question for another term
  const undecided = (why: string): EntryResult =>
    mode === 'vulnerable' ? { kind: 'no', comparison: base, why } : { kind: 'undecided', comparison: base, why, unordered: false };
  const product = `${textOf(wanted.vendor) ?? '*'}:${textOf(wanted.product) ?? '*'}`;

  if (wanted.version.kind === 'na') {
    if (mode === 'vulnerable') {
      // a finding still needs the component's version (version_missing), though none is compared
      if (identity.version === null) return { kind: 'no', comparison: base, why: 'the component has no version' };
      return { kind: 'yes', comparison: base, unbounded: false, condition: `the record names no version of ${product}` };
    }
    // another term: NISTIR 7696, NA only matches NA; a component that says nothing leaves it open
    if (identity.version !== null)
      return { kind: 'no', comparison: base, why: `the criterion names no version, the component ${identity.version.value}` };
    return identity.wfn.version.kind === 'na'
      ? { kind: 'yes', comparison: base, unbounded: false, condition: null }
      : undecided('the component does not say its version');
  }
  // an exact version reads the update with it (exact, below); a range or ANY checks it here
  const exactVersion = wanted.version.kind === 'value' && !hasWildcards(wanted.version);
  const update = exactVersion ? 'yes' : updateVerdict(wanted, identity);
  if (update === 'no') return { kind: 'no', comparison: base, why: 'the update differs' };
  if (update === 'undecided') return undecided('the component does not say its update');
  if (wanted.version.kind === 'any' && criterion.range === null) {
    // every version: a term holds whatever the version; a finding still needs one (version_missing)
    if (identity.version === null && mode === 'vulnerable') return { kind: 'no', comparison: base, why: 'the component has no version' };
    return { kind: 'yes', comparison: base, unbounded: true, condition: null };
  }
  if (identity.version === null) return undecided('the component does not say its version');

  const component = readComponentVersion(identity.version.value);
  const componentUpdate = textOf(identity.wfn.update);
  const read = withUpdate(identity.version.value, componentUpdate);
  const checks: VersionCheck[] = [];
  let shown: { compared: string; stripped: string[] } | null = null;
  let unordered = false;
  let literally = false;
  const check: Check = (op, against, test) => {
    const stripped = versionAgainst(component, against);
    const compared = withUpdate(stripped.compared, componentUpdate);
    shown ??= { compared, stripped: stripped.stripped };
    const answer = test(compared);
    if (answer === null) unordered = true;
    else checks.push({ op, against, holds: answer !== false });
    if (answer === 'literal') literally = true;
    return answer === true || answer === 'literal';
  };
  const comparison = (order: Comparison['order']): Comparison => ({
    ...base,
    version: read,
    compared_as: shown?.compared ?? null,
    stripped: shown?.stripped ?? [],
    order,
    checks,
  });

  let inside = true;
  for (const [field, op] of BOUNDS) {
    const bound = criterion.range?.[field];
    if (bound === undefined) continue;
    inside =
      check(op, bound, (compared) => {
        const order = compareUpstream(compared, bound);
        return order === 'unknown' ? null : holds(op, order);
      }) && inside;
  }
  if (wanted.version.kind === 'value') inside = exact(wanted, check, read) && inside;
  if (unordered) return { kind: 'undecided', comparison: comparison(null), why: `the version ${read} cannot be ordered`, unordered: true };
  if (!inside) return { kind: 'no', comparison: comparison('upstream'), why: `${read} is outside the criterion's versions` };
  return { kind: 'yes', comparison: comparison(literally ? 'literal' : 'upstream'), unbounded: false, condition: null };
}

/** A check's answer: holds or not, `literal` (equal as text, neither side readable), null (cannot be ordered). */
type Answer = boolean | 'literal' | null;
type Check = (op: VersionCheck['op'], against: string, test: (compared: string) => Answer) => boolean;

/** An exact criterion version, with its update: firmware.md's Readings, "Update attribute". */
function exact(wanted: Wfn, check: Check, read: string): boolean {
  const version = wanted.version as Extract<Wfn['version'], { kind: 'value' }>;
  if (hasWildcards(version)) return check('=', textOf(version)!, (compared) => covers(version, literal(compared)) === 'yes');
  const update = wanted.update;
  const target = update.kind === 'value' ? withUpdate(version.text, update.text) : version.text;
  // an exact version neither order reads (a vendor's V100R001C01) still matches when equal as text
  const literally = (compared: string): Answer =>
    [compared.toLowerCase(), read.toLowerCase()].includes(target.toLowerCase()) ? 'literal' : null;
  const wantedRead = readUpstream(target);
  // ANY update: every update of that version (1.0.2:* holds 1.0.2 and 1.0.2-beta2), so compare releases
  const sameRelease = update.kind === 'any' && wantedRead !== null && wantedRead.qualifiers.length === 0;
  return check(sameRelease ? 'release' : '=', target, (compared) => {
    const got = readUpstream(compared);
    if (got === null || wantedRead === null) return literally(compared);
    return compareRead(sameRelease ? releaseOf(got) : got, wantedRead) === 0;
  });
}
