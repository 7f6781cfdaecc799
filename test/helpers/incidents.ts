import type { LightMyRequestResponse } from 'fastify';
import { createCaseService } from '../../src/cases/cases.service.js';
import { createComplianceService } from '../../src/compliance/compliance.service.js';
import { createIncidentService } from '../../src/incidents/incidents.service.js';
import type { Harness } from './app.js';

export const INCIDENTS_URL = '/api/v1/external/incidents';
export const SCORE_URL = '/api/v1/external/compliance-score';

/** The incident, case and compliance services on the harness's database and clock. */
export function caseServices(h: Harness) {
  return {
    incidents: createIncidentService(h.database, h.clock.now),
    cases: createCaseService(h.database, h.orgs, h.clock.now),
    compliance: createComplianceService(h.database, h.orgs, h.clock.now),
  };
}

/** POST /incidents with a JSON body. */
export function postIncident(h: Harness, key: string, body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return h.request({
    method: 'POST',
    url: INCIDENTS_URL,
    key,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
