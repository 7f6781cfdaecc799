import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { apiSecurity, authErrors, success } from '../http/openapi-responses.js';
import { ActiveTimerSchema, COMPLIANCE_SCORE_EXAMPLE, ComplianceScoreSchema } from './compliance.schemas.js';
import type { ComplianceService } from './compliance.service.js';

export function complianceScoreRoute(app: FastifyInstance, deps: { compliance: ComplianceService }): void {
  app.get(
    '/compliance-score',
    {
      config: {
        scope: 'compliance:read',
        examples: {
          responses: {
            200: { score: { summary: 'One running clock, half the active products with an SBOM', value: COMPLIANCE_SCORE_EXAMPLE } },
          },
        },
      },
      schema: {
        operationId: 'getComplianceScore',
        summary: "Read the organisation's compliance score",
        description:
          "The key organisation's CRA health score, time to notify, SBOM coverage, open cases and running 24 h / 72 h timers, " +
          'computed at request time. Only cases count: signals awaiting triage start no clock. ' +
          'A query string is ignored. Requires scope `compliance:read`.',
        tags: ['compliance'],
        security: apiSecurity,
        response: { 200: success(Type.Ref(ComplianceScoreSchema), 'The score, computed now'), ...authErrors },
      },
    },
    async (request) => deps.compliance.complianceScore(request.principal!.orgId, request.principal!.orgRegistrySeq),
  );
}

export const complianceSchemas = [ActiveTimerSchema, ComplianceScoreSchema];
