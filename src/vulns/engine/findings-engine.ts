import type { Database, Trx } from '../../db/index.js';
import type { ProductRow } from '../../db/schema.js';
import type { FindingRow } from '../../db/schema-vulns.js';
import { appendRegistryEntry } from '../../registry/append-entry.js';
import { type Clock, iso, systemClock } from '../../shared/time.js';
import { emitEvent } from '../../webhooks/emit-event.js';
import { analysisRepo } from '../store/analysis.repo.js';
import { findingsRepo } from '../store/findings.repo.js';
import { POSTGRES_CHUNK } from './component-matcher.js';
import { releasesOfComponents } from './component-releases.js';
import { type CpeMatcher, createCpeMatcher, type MatchSession } from './cpe-matcher.js';
import { PLATFORM_ACTOR, raiseExploited } from './exploited-signals.js';

// Findings: which products carry which vulnerability, kept in step with the products' latest
// revisions and the matches; the exploited ones carried on to Article 14 (exploited-signals.ts).

export interface ProductRun {
  orgId: string;
  product: ProductRow;
  /** Findings that appeared in this run. */
  added: FindingRow[];
  /** Findings no latest revision holds any more. */
  gone: number;
}

/** Exploited first, then by CVSS, then by EPSS: the order of `findings.new`'s `top`. */
export function bySeverity(a: Pick<FindingRow, 'exploited' | 'cvss_score' | 'epss_score'>, b: typeof a): number {
  return b.exploited - a.exploited || (b.cvss_score ?? -1) - (a.cvss_score ?? -1) || (b.epss_score ?? -1) - (a.epss_score ?? -1);
}

/** What a finding is wanted with: where its component is, and how it was found. */
interface Wanted {
  componentId: number;
  vulnKey: string;
  releases: string;
  match: string | null;
  conditional: number;
  sources: string;
}

const differs = (row: FindingRow, want: Wanted) =>
  row.releases !== want.releases || row.match !== want.match || row.conditional !== want.conditional || row.sources !== want.sources;

export function createFindingsEngine(database: Database, options: { clock?: Clock; cpe?: CpeMatcher } = {}) {
  const clock = options.clock ?? systemClock;
  const cpe = options.cpe ?? createCpeMatcher(database);
  const { db } = database;

  /**
   * Brings the product's findings in step with its latest revisions and the matches: new ones
   * recorded (with the organisation's rules applied), gone ones marked with the revision that
   * dropped them, the releases of the others updated. Then the exploited ones raise their signal.
   */
  async function refreshProduct(
    productId: string,
    orgMatches?: ReadonlyMap<number, Set<string>>,
    session?: MatchSession,
  ): Promise<ProductRun | null> {
    const product = await findingsRepo.product(db, productId);
    if (!product) return null;
    const at = iso(clock());
    const latest = await findingsRepo.latestRevisions(db, productId);
    const releasesOf = await releasesOfComponents(latest);
    // A round trip a statement on PostgreSQL: fewer, larger lookups there.
    const matches = orgMatches
      ? matchesAmong(orgMatches, releasesOf.keys())
      : await findingsRepo.matchesOf(
          db,
          database.dialect,
          [...releasesOf.keys()],
          database.dialect === 'postgres' ? POSTGRES_CHUNK : undefined,
        );
    const wanted = new Map<string, Wanted>();
    for (const [componentId, keys] of matches) {
      const releases = releasesOf.get(componentId)!;
      for (const vulnKey of keys)
        wanted.set(`${componentId}\u0000${vulnKey}`, { componentId, vulnKey, releases, match: null, conditional: 0, sources: OSV_ONLY });
    }
    // CPE matches of the same component and CVE join the purl's: one finding, both sources.
    for (const [key, found] of await cpe.matchRevisions(latest, session)) {
      const purl = wanted.get(key);
      const match = JSON.stringify(found.evidence);
      if (purl !== undefined) {
        const releases = [...new Set([...(JSON.parse(purl.releases) as string[]), ...found.releases])].sort();
        wanted.set(key, { ...purl, releases: JSON.stringify(releases), match, sources: BOTH });
      } else {
        const releases = JSON.stringify([...found.releases].sort());
        wanted.set(key, {
          componentId: found.componentId,
          vulnKey: found.vulnKey,
          releases,
          match,
          conditional: found.evidence.conditional ? 1 : 0,
          sources: NVD_ONLY,
        });
      }
    }
    const stored = await findingsRepo.ofProduct(db, productId);
    const newest = latest.reduce<(typeof latest)[number] | null>((a, b) => (a === null || b.ingested_at > a.ingested_at ? b : a), null);
    const scores = await findingsRepo.scoresOf(db, [...new Set([...wanted.values()].map((w) => w.vulnKey))]);
    const added: FindingRow[] = [];
    // Changes to stored findings, a statement per chunk of them: gone ones, and live ones each
    // with its new releases and match.
    const goneRows: FindingRow[] = [];
    const liveRows: Array<Pick<FindingRow, 'component_id' | 'vuln_key' | 'releases' | 'match' | 'conditional' | 'sources'>> = [];
    for (const row of stored) {
      const want = wanted.get(`${row.component_id}\u0000${row.vuln_key}`);
      wanted.delete(`${row.component_id}\u0000${row.vuln_key}`);
      if (!want && row.gone_at === null) goneRows.push(row);
      else if (want && (row.gone_at !== null || differs(row, want)))
        liveRows.push({
          component_id: row.component_id,
          vuln_key: row.vuln_key,
          releases: want.releases,
          match: want.match,
          conditional: want.conditional,
          sources: want.sources,
        });
    }
    const gone = goneRows.length;
    await database.transaction(async (trx) => {
      const by = newest ? `${newest.release_version} revision ${newest.revision}` : null;
      await findingsRepo.updateMany(trx, productId, goneRows, { gone_at: at, gone_with: by });
      await findingsRepo.updateEach(trx, productId, liveRows);
      for (const w of wanted.values()) {
        const score = scores.get(w.vulnKey);
        added.push({
          org_id: product.org_id,
          product_id: productId,
          component_id: w.componentId,
          vuln_key: w.vulnKey,
          releases: w.releases,
          first_seen_at: at,
          gone_at: null,
          gone_with: null,
          exploited: score?.exploited ?? 0,
          cvss_score: score?.cvss_score ?? null,
          epss_score: score?.epss_score ?? null,
          match: w.match,
          conditional: w.conditional,
          sources: w.sources,
        });
      }
      await findingsRepo.insert(trx, added);
      if (added.length) await applyRules(trx, product, added, at);
      // A conditional finding is counted apart: it is announced by no event of its own.
      const asserted = added.filter((f) => f.conditional === 0);
      if (asserted.length) await announceNew(trx, product, asserted, at);
      // Recorded like every other change (and what the compliance score's cached inputs follow).
      if (added.length || gone) {
        const details = { new: added.length, resolved: gone, vulnerabilities: [...new Set(added.map((f) => f.vuln_key))].slice(0, 50) };
        await appendRegistryEntry(
          trx,
          product.org_id,
          { actor: PLATFORM_ACTOR, action: 'findings.changed', subject: product.sku, details },
          at,
        );
      }
    });
    await raiseExploited(database, clock, product);
    return { orgId: product.org_id, product, added, gone };
  }

  /** The organisation's rules for vulnerabilities that appear later, applied to new findings. */
  async function applyRules(trx: Trx, product: ProductRow, added: readonly FindingRow[], at: string): Promise<void> {
    const keys = [...new Set(added.map((f) => f.vuln_key))];
    const rules = (await analysisRepo.rulesFor(trx, product.org_id, keys)).filter((r) => r.until === null || r.until > at);
    if (rules.length === 0) return;
    const purls = await analysisRepo.purlsOf(
      trx,
      added.map((f) => f.component_id),
    );
    for (const key of keys) {
      const findingPurls = added.filter((f) => f.vuln_key === key).map((f) => purls.get(f.component_id) ?? null);
      const rule = rules.find((r) => r.vuln_key === key && (r.purl === null || findingPurls.includes(r.purl)));
      if (!rule || (await analysisRepo.analysis(trx, product.id, key))) continue;
      const analysis = { state: rule.state, justification: rule.justification, responses: rule.responses, detail: rule.detail };
      await analysisRepo.save(trx, {
        org_id: product.org_id,
        product_id: product.id,
        vuln_key: key,
        ...analysis,
        updated_at: at,
        updated_by: `rule:${rule.id}`,
      });
      await appendRegistryEntry(
        trx,
        product.org_id,
        {
          actor: `rule:${rule.id}`,
          action: 'finding.analysed',
          subject: `${product.sku} ${key}`,
          details: { vulnerability: key, product_sku: product.sku, state: rule.state, rule: rule.id },
        },
        at,
      );
    }
  }

  /** `findings.new`: one event per product and run, never one per finding. */
  async function announceNew(trx: Trx, product: ProductRow, added: readonly FindingRow[], at: string): Promise<void> {
    const keys = [...new Set(added.map((f) => f.vuln_key))];
    const exploited = new Set(added.filter((f) => f.exploited).map((f) => f.vuln_key));
    const best = new Map<string, FindingRow>();
    for (const f of added) if (!best.has(f.vuln_key)) best.set(f.vuln_key, f);
    const top = [...best.values()]
      .sort(bySeverity)
      .slice(0, 10)
      .map((f) => f.vuln_key);
    await emitEvent(
      trx,
      product.org_id,
      'findings.new',
      { product_sku: product.sku, new: keys.length, exploited: exploited.size, top },
      at,
    );
  }

  return {
    refreshProduct,

    /**
     * Brings many products' findings up to date (after an import): the matches of an
     * organisation's components are read once for all its products, not once per product.
     */
    async refreshProducts(productIds: Iterable<string>): Promise<{ new: number; resolved: number }> {
      const findings = { new: 0, resolved: 0 };
      const orgs = new Map<string, string[]>();
      // What the CPE matcher reads of components and records, read once for all these products.
      const session = cpe.session();
      for (const row of await findingsRepo.organisationsOf(db, [...new Set(productIds)])) {
        orgs.set(row.org_id, [...(orgs.get(row.org_id) ?? []), row.id]);
      }
      for (const [orgId, products] of orgs) {
        const orgMatches = products.length > 1 ? await findingsRepo.matchesOfOrg(db, orgId) : undefined;
        for (const id of products) {
          const run = await refreshProduct(id, orgMatches, session);
          if (run) {
            findings.new += run.added.length;
            findings.resolved += run.gone;
          }
        }
      }
      return findings;
    },

    /** The products whose findings may change when these package versions' matches changed. */
    async productsOfPackageVersions(packageVersionIds: readonly number[]): Promise<string[]> {
      const products = new Set<string>();
      for (const [orgId, componentIds] of await findingsRepo.componentsOf(db, packageVersionIds)) {
        for (const id of await findingsRepo.productsHolding(db, orgId, componentIds)) products.add(id);
      }
      return [...products];
    },

    /** The products with live findings of these groups (whose exploited state may have changed). */
    async productsOfGroups(vulnKeys: readonly string[]): Promise<string[]> {
      const products = new Set<string>();
      for (let i = 0; i < vulnKeys.length; i += 500) {
        for (const row of await findingsRepo.productsWith(db, vulnKeys.slice(i, i + 500))) products.add(row.product_id);
      }
      return [...products];
    },
  };
}

/** The matches of these components, out of an organisation's. */
function matchesAmong(orgMatches: ReadonlyMap<number, Set<string>>, componentIds: Iterable<number>): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (const id of componentIds) {
    const keys = orgMatches.get(id);
    if (keys) out.set(id, keys);
  }
  return out;
}

const OSV_ONLY = '["osv"]';
const NVD_ONLY = '["nvd"]';
const BOTH = '["nvd","osv"]';

export type FindingsEngine = ReturnType<typeof createFindingsEngine>;
