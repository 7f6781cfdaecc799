import type { Database } from '../db/index.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { systemClock, type Clock } from '../shared/time.js';
import { complianceRepo } from './compliance.repo.js';
import { computeScore, type ComplianceScore, type ScoreBreakdown } from './score.js';

export function createComplianceService(database: Database, orgs: OrgService, clock: Clock = systemClock) {
  async function evaluate(orgId: string): Promise<{ score: ComplianceScore; breakdown: ScoreBreakdown }> {
    const [cases, products] = await Promise.all([complianceRepo.cases(database.db, orgId), complianceRepo.products(database.db, orgId)]);
    return computeScore({ cases, products, now: clock() });
  }

  return {
    /** The organisation's ComplianceScore as the API returns it. */
    async complianceScore(orgId: string): Promise<ComplianceScore> {
      return (await evaluate(orgId)).score;
    },

    /** The score with its rule-by-rule breakdown, for `cra-admin score explain`. */
    async explainScore(orgSlug: string): Promise<{ score: ComplianceScore; breakdown: ScoreBreakdown }> {
      const org = await orgs.requireOrg(orgSlug);
      return evaluate(org.id);
    },
  };
}

export type ComplianceService = ReturnType<typeof createComplianceService>;
