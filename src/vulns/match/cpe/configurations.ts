import type { ComponentIdentity } from './component-cpes.js';
import { type Criterion, type EntryResult, type NvdCpeMatch, readCriterion } from './criterion.js';
import { matchEntry } from './entry-match.js';
import { type Evidence, rangeText, shortCriteria } from './evidence.js';

// An NVD record's `configurations`, evaluated as the boolean expressions they are (firmware.md,
// "Matching a CVE record's configurations"): each configuration combines its nodes with its
// operator (OR when absent), each node its entries with its own, `negate` inverts. Terms are
// three-valued: a term no component of the revision can decide is unknown, and so is the
// expression it leaves open, which makes the finding conditional, with that term as its
// condition. A component is affected when a configuration holds with it satisfying a
// `vulnerable: true` entry of it.

export interface NvdNode {
  operator?: string;
  negate?: boolean;
  cpeMatch?: NvdCpeMatch[];
}

export interface NvdConfiguration {
  operator?: string;
  negate?: boolean;
  nodes?: NvdNode[];
}

/** A component of the revision, with the CPEs it is matched by (component-cpes.ts). */
export interface RevisionComponent {
  ref: string;
  identities: readonly ComponentIdentity[];
}

export interface RevisionInput {
  components: readonly RevisionComponent[];
  /** The SBOM's subject, the device itself: it decides terms, and is not itself given findings. */
  subject?: readonly ComponentIdentity[];
}

export interface CpeFinding {
  ref: string;
  evidence: Evidence;
}

export interface ConfigurationsResult {
  /** At most one per component: asserted before conditional, bounded before unbounded. */
  findings: CpeFinding[];
  /** A component named by a vulnerable entry whose version the order cannot read: no finding (version_unparsable). */
  unordered: { ref: string; cpe: string; criteria: string; version: string | null }[];
  /** What of the record could not be read, each named: such a term is unknown, never true. */
  unreadable: string[];
}

type Value = 'true' | 'false' | 'unknown';
interface Truth {
  value: Value;
  conditions: string[];
}
export interface Leaf {
  criterion: Criterion;
  positive: boolean; // under an even number of negations
}
export interface Tree {
  and: boolean;
  negate: boolean;
  children: (Tree | Leaf)[];
}

const TRUE: Truth = { value: 'true', conditions: [] };
const FALSE: Truth = { value: 'false', conditions: [] };

function operatorOf(operator: string | undefined, unreadable: string[], where: string): boolean {
  if (operator === undefined || operator === 'OR') return false;
  if (operator === 'AND') return true;
  unreadable.push(`${where}: operator ${JSON.stringify(operator)} is neither AND nor OR (read as OR)`);
  return false;
}

function treeOf(configuration: NvdConfiguration, index: number, unreadable: string[]): Tree {
  const negate = configuration.negate === true;
  const nodes = (configuration.nodes ?? []).map((node, n): Tree => {
    const positive = negate === (node.negate === true);
    const children = (node.cpeMatch ?? []).map((entry): Leaf => {
      const criterion = readCriterion(entry);
      if (criterion.wfn === null) unreadable.push(`criteria ${JSON.stringify(entry.criteria)} do not parse: the term is unknown`);
      return { criterion, positive };
    });
    return { and: operatorOf(node.operator, unreadable, `configuration ${index} node ${n}`), negate: node.negate === true, children };
  });
  return { and: operatorOf(configuration.operator, unreadable, `configuration ${index}`), negate, children: nodes };
}

function combine(and: boolean, parts: Truth[]): Truth {
  const decisive = and ? 'false' : 'true';
  if (parts.some((p) => p.value === decisive)) return and ? FALSE : TRUE;
  const open = parts.filter((p) => p.value === 'unknown');
  if (open.length === 0) return and ? TRUE : FALSE;
  return { value: 'unknown', conditions: [...new Set(open.flatMap((p) => p.conditions))] };
}

function evaluate(node: Tree | Leaf, leafValue: (leaf: Leaf) => Truth): Truth {
  if ('criterion' in node) return leafValue(node);
  const truth = combine(
    node.and,
    node.children.map((child) => evaluate(child, leafValue)),
  );
  if (!node.negate || truth.value === 'unknown') return truth;
  return truth.value === 'true' ? FALSE : TRUE;
}

function leavesOf(tree: Tree): Leaf[] {
  return tree.children.flatMap((child) => ('criterion' in child ? [child] : leavesOf(child)));
}

/** What the revision says of a term: some component satisfies it, none does, or nothing can tell. */
function termValue(leaf: Leaf, revision: RevisionInput): Truth {
  const { criterion } = leaf;
  const written = `${shortCriteria(criterion.entry.criteria)}${criterion.range === null ? '' : ` (${rangeText(criterion.range)})`}`;
  const open: Truth = { value: 'unknown', conditions: [`only ${leaf.positive ? 'with' : 'without'} ${written}`] };
  if (criterion.wfn === null) return open;
  const subject = revision.subject ?? [];
  const results = [...revision.components.flatMap((c) => c.identities), ...subject].map((id) => matchEntry(criterion, id, 'term'));
  if (results.some((r) => r.kind === 'yes')) return TRUE;
  // the device is one hardware model: a subject of part h decides every hardware term
  const hardware = subject.filter((id) => id.wfn.part.kind === 'value' && id.wfn.part.text === 'h');
  const wantsHardware = criterion.wfn.part.kind === 'value' && criterion.wfn.part.text === 'h';
  if (wantsHardware && hardware.length > 0 && hardware.every((id) => matchEntry(criterion, id, 'term').kind === 'other')) return FALSE;
  if (results.some((r) => r.kind === 'undecided')) return open;
  return results.some((r) => r.kind === 'no') ? FALSE : open;
}

type Satisfied = { leaf: Leaf; identity: ComponentIdentity; result: Extract<EntryResult, { kind: 'yes' }> };

const CONFIDENCE_RANK = { exact: 0, confirmed: 1, inferred: 2 } as const;
function better(a: Satisfied, b: Satisfied): boolean {
  const key = (s: Satisfied) => [s.result.condition === null ? 0 : 1, s.result.unbounded ? 1 : 0, CONFIDENCE_RANK[s.identity.confidence]];
  const [ka, kb] = [key(a), key(b)];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]!;
  return false;
}

type Chosen = { satisfied: Satisfied; conditions: string[] };

/** Across configurations: an asserted finding before a conditional one, then the better evidence. */
function preferred(a: Chosen, b: Chosen): boolean {
  if ((a.conditions.length === 0) !== (b.conditions.length === 0)) return a.conditions.length === 0;
  return better(a.satisfied, b.satisfied);
}

function evidenceOf(best: Satisfied, conditions: string[]): Evidence {
  const { criterion } = best.leaf;
  return {
    cpe: best.identity.cpe,
    cpe_source: best.identity.source,
    criteria: criterion.entry.criteria,
    match_criteria_id: criterion.entry.matchCriteriaId ?? null,
    range: criterion.range,
    comparison: best.result.comparison,
    confidence: best.identity.confidence,
    unbounded: best.result.unbounded,
    conditional: conditions.length > 0,
    condition: conditions.length > 0 ? conditions.join('; ') : null,
  };
}

/** A record's configurations read once (criteria parsed, trees built), to be evaluated against many revisions. */
export interface CompiledConfigurations {
  trees: readonly { tree: Tree; leaves: readonly Leaf[] }[];
  unreadable: readonly string[];
}

export function compileConfigurations(configurations: readonly NvdConfiguration[]): CompiledConfigurations {
  const unreadable: string[] = [];
  const trees = configurations.map((configuration, i) => {
    const tree = treeOf(configuration, i, unreadable);
    return { tree, leaves: leavesOf(tree) };
  });
  return { trees, unreadable: [...new Set(unreadable)] };
}

/** Which components of the revision an NVD record's configurations apply to, each with its evidence. */
export function evaluateConfigurations(
  configurations: readonly NvdConfiguration[] | CompiledConfigurations,
  revision: RevisionInput,
): ConfigurationsResult {
  const compiled = Array.isArray(configurations) ? compileConfigurations(configurations) : (configurations as CompiledConfigurations);
  const { trees } = compiled;
  const terms = new Map<Leaf, Truth>();
  const term = (leaf: Leaf): Truth => {
    if (!terms.has(leaf)) terms.set(leaf, termValue(leaf, revision));
    return terms.get(leaf)!;
  };
  const findings: CpeFinding[] = [];
  const unordered: ConfigurationsResult['unordered'] = [];
  const reported = new Set<string>();
  for (const component of revision.components) {
    let chosen: Chosen | null = null;
    for (const { tree, leaves } of trees) {
      const mine = new Map<Leaf, Satisfied>();
      for (const leaf of leaves) {
        if (!leaf.criterion.entry.vulnerable || !leaf.positive) continue;
        for (const identity of component.identities) {
          const result = matchEntry(leaf.criterion, identity, 'vulnerable');
          if (result.kind === 'undecided' && result.unordered) {
            const { criteria } = leaf.criterion.entry;
            const key = `${component.ref}\n${identity.cpe}\n${criteria}`;
            if (!reported.has(key)) unordered.push({ ref: component.ref, cpe: identity.cpe, criteria, version: result.comparison.version });
            reported.add(key);
          }
          if (result.kind !== 'yes') continue;
          const satisfied = { leaf, identity, result };
          const held = mine.get(leaf);
          if (held === undefined || better(satisfied, held)) mine.set(leaf, satisfied);
        }
      }
      if (mine.size === 0) continue;
      // the component's own entries are decided by it; every other term by the whole revision
      const truth = evaluate(tree, (leaf) => {
        const own = mine.get(leaf);
        if (own === undefined) return term(leaf);
        return own.result.condition === null ? TRUE : { value: 'unknown', conditions: [own.result.condition] };
      });
      if (truth.value === 'false') continue;
      const best = [...mine.values()].reduce((a, b) => (better(b, a) ? b : a));
      const conditions = [...truth.conditions];
      if (best.result.condition !== null && !conditions.includes(best.result.condition)) conditions.unshift(best.result.condition);
      const candidate = { satisfied: best, conditions };
      if (chosen === null || preferred(candidate, chosen)) chosen = candidate;
    }
    if (chosen !== null) findings.push({ ref: component.ref, evidence: evidenceOf(chosen.satisfied, chosen.conditions) });
  }
  return { findings, unordered, unreadable: [...compiled.unreadable] };
}
