import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { apiSecurity, authErrors, bodyErrors, errorResponse, success } from '../http/openapi-responses.js';
import { errorExample } from '../http/openapi-examples.js';
import {
  INCIDENT_CREATED_EXAMPLES,
  IncidentCreatedSchema,
  NEW_INCIDENT_EXAMPLES,
  NewIncidentSchema,
  type NewIncident,
} from './incidents.schemas.js';
import type { IncidentService } from './incidents.service.js';

const DESCRIPTION = `Registers an inbound security report for the key's organisation and returns its
per-organisation incident number. What else happens depends on the organisation's intake mode,
set by an administrator:

- \`signal\` (default): the report is stored as a signal with status \`INCOMING\`. No case is
  opened and no clock starts: \`awareness_timestamp\`, \`early_warning_deadline\` and
  \`full_notification_deadline\` are null. Under CRA Art. 14 the 24 h / 72 h clocks start when
  the manufacturer becomes aware, which is a human triage decision taken in the console.
- \`case\`: a signal and a notifiable case are opened at once, status \`OPEN\`; awareness is the
  instant of receipt (UTC), the early warning is due 24 h and the notification 72 h later.

The report is matched to a product by \`sku\`, else by \`gtin\`, within the key's organisation
only. A \`sku\` or \`gtin\` that matches nothing is not an error: the report is kept as
unattributed. Unknown fields are ignored and not stored. Body at most 64 KiB by default.
Requires scope \`incidents:write\`.`;

export function createIncidentRoute(app: FastifyInstance, deps: { incidents: IncidentService; maxBytes: number }): void {
  app.post<{ Body: NewIncident }>(
    '/incidents',
    {
      bodyLimit: deps.maxBytes,
      config: {
        scope: 'incidents:write',
        examples: {
          request: { 'application/json': NEW_INCIDENT_EXAMPLES },
          responses: {
            201: INCIDENT_CREATED_EXAMPLES,
            422: {
              blank: {
                ...errorExample('validation_failed', 'the request body is invalid', [
                  { path: '/description', message: 'must match pattern "\\S"' },
                ]),
                summary: 'A blank description',
              },
              cve: {
                ...errorExample('validation_failed', 'the request body is invalid', [
                  { path: '/cve', message: 'must match pattern "^CVE-\\d{4}-\\d{4,}$"' },
                ]),
                summary: 'A cve not of the form CVE-YYYY-NNNN…',
              },
            },
          },
        },
      },
      schema: {
        operationId: 'createIncident',
        summary: 'Register an inbound security signal',
        description: DESCRIPTION,
        tags: ['incidents'],
        security: apiSecurity,
        body: Type.Ref(NewIncidentSchema),
        response: {
          201: success(Type.Ref(IncidentCreatedSchema), 'Registered; durable before this answer'),
          ...bodyErrors,
          422: errorResponse(
            'Invalid body: description missing or blank, a field of the wrong type or too long, or a cve not of the form CVE-YYYY-NNNN… (code validation_failed; details name the fields as JSON pointers)',
          ),
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const created = await deps.incidents.receiveSignal({ orgId: principal.orgId, source: `api:${principal.keyName}` }, request.body);
      return reply.code(201).send(created);
    },
  );
}

export const incidentSchemas = [NewIncidentSchema, IncidentCreatedSchema];
