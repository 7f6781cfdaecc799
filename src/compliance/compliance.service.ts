import type { Database } from '../db/index.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { SnapshotCache } from '../shared/snapshot-cache.js';
import { systemClock, type Clock } from '../shared/time.js';
import { complianceRepo } from './compliance.repo.js';
import {
  computeScore,
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
  // Only the inputs are cached (keyed by the registry sequence number, which every case, product and SBOM
  // change advances); the rules run on every request because deadlines pass with time alone.
  const inputs = new SnapshotCache<ScoreInputs>();

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
      return computeScore({ ...data, now: clock() }).score;
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
