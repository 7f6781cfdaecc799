import { covers } from './compare.js';
import type { ComponentIdentity } from './component-cpes.js';
import { type Criterion, type EntryResult, type Mode, noComparison } from './criterion.js';
import { matchVersion } from './version-match.js';
import { type Attribute, textOf, type Wfn } from './wfn.js';

// One `cpeMatch` entry of an NVD record against one CPE of a component (firmware.md, "Matching a
// CVE record's configurations"). Two readings of "the component did not say" (its ANY where the
// criterion has a value or NA): for the component's own vulnerable entry it is no match; for
// another term of an AND (a platform, the hardware) it leaves the term undecided.

const NAMING: Attribute[] = ['part', 'vendor', 'product'];
const OTHERS: Attribute[] = ['edition', 'language', 'sw_edition', 'target_sw', 'target_hw', 'other'];

function said(value: Wfn[Attribute]): string {
  return value.kind === 'any' ? 'nothing' : value.kind === 'na' ? '-' : (textOf(value) ?? '');
}

export function matchEntry(criterion: Criterion, identity: ComponentIdentity, mode: Mode): EntryResult {
  const wanted = criterion.wfn;
  if (wanted === null) return { kind: 'other' };
  for (const attribute of NAMING) {
    if (attribute === 'part' && identity.partFromCriterion) continue;
    if (covers(wanted[attribute], identity.wfn[attribute]) !== 'yes') return { kind: 'other' };
  }
  for (const attribute of OTHERS) {
    const verdict = covers(wanted[attribute], identity.wfn[attribute]);
    if (verdict === 'yes') continue;
    const why = `${attribute}: the criterion says ${said(wanted[attribute])}, the component ${said(identity.wfn[attribute])}`;
    if (verdict === 'no' || mode === 'vulnerable') return { kind: 'no', comparison: noComparison(identity), why };
    return { kind: 'undecided', comparison: noComparison(identity), why, unordered: false };
  }
  return matchVersion(criterion, wanted, identity, mode);
}
