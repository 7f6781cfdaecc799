import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from './app.js';

export const INCIDENTS_URL = '/api/v1/external/incidents';
export const SCORE_URL = '/api/v1/external/compliance-score';

/** The incident, case and compliance services the harness's app runs on. */
export function caseServices(h: Harness) {
  return { incidents: h.incidents, cases: h.cases, compliance: h.compliance };
}

/** POST /incidents with a JSON body. */
export function postIncident(
  h: Harness,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return h.request({
    method: 'POST',
    url: INCIDENTS_URL,
    key,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
