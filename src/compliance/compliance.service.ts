import type { Database } from '../db/index.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { SnapshotCache } from '../shared/snapshot-cache.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { complianceRepo } from './compliance.repo.js';
import {
  computeScore,
  scoreChangesAt,
  type ComplianceScore,
  type ScoreBreakdown,
  type ScoreCase,
  type ScoreExploited,
  type ScoreProduct,
} from './score.js';

interface ScoreInputs {
  cases: ScoreCase[];
  products: ScoreProduct[];
  exploited: ScoreExploited[];
}

export function createComplianceService(database: Database, orgs: OrgService, clock: Clock = systemClock) {
  // The inputs are cached, keyed by the registry sequence number (every case, product and SBOM
  // change advances it). Deadlines pass with time alone, so a score computed from them stands
  // only until the next due time or end of support (scoreChangesAt); it is kept with the inputs
  // it came from, and goes when they go.
  const inputs = new SnapshotCache<ScoreInputs>();
  const scores = new WeakMap<ScoreInputs, { score: ComplianceScore; from: number; until: number | null }>();

  async function load(orgId: string): Promise<ScoreInputs> {
    const [cases, products, exploited] = await Promise.all([
      complianceRepo.cases(database.db, orgId),
      complianceRepo.products(database.db, orgId),
      complianceRepo.exploited(database.db, orgId),
    ]);
    return { cases, products, exploited };
  }

  return {
    /**
     * The organisation's ComplianceScore as the API returns it. With `stamp` (the registry sequence number
     * read at authentication) the inputs are reused until the next change.
     */
    async complianceScore(orgId: string, stamp?: number): Promise<ComplianceScore> {
      const data = await (stamp === undefined ? load(orgId) : inputs.get(orgId, stamp, () => load(orgId)));
      const now = clock();
      const t = now.getTime();
      const kept = scores.get(data);
      // A clock set back (tests, an operator's correction) computes again.
      if (kept && t >= kept.from && (kept.until === null || t < kept.until)) return { ...kept.score, generated_at: iso(now) };
      const { score } = computeScore({ ...data, now });
      scores.set(data, { score, from: t, until: scoreChangesAt({ ...data, now }) });
      return score;
    },

    /** The score with its rule-by-rule breakdown, for `cra-admin score explain`. */
    async explainScore(orgSlug: string): Promise<{ score: ComplianceScore; breakdown: ScoreBreakdown }> {
      const org = await orgs.requireOrg(orgSlug);
      // The organisation row was just read, so its registry sequence number is current: the same
      // cache as the API's, which the console's Today page reads on every visit and refresh.
      const data = await inputs.get(org.id, Number(org.registry_seq), () => load(org.id));
      return computeScore({ ...data, now: clock() });
    },
  };
}

export type ComplianceService = ReturnType<typeof createComplianceService>;
