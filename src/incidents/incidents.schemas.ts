import { Type, type Static, type TString } from '@sinclair/typebox';

// The NewIncident body and its 201 answer (api-v1 §2, decisions §1). Maximum lengths keep one
// report well inside the route's 64 KiB body limit and the stored row bounded.

/**
 * An optional field that may also be sent as `null`, which counts as absent (decisions §4).
 * ajv's `nullable` keyword (OpenAPI's own) keeps the plain type's error messages for wrong types,
 * and the OpenAPI document shows `nullable: true`, so generated clients may send null too.
 */
const optionalNullable = (schema: TString) => Type.Optional(Type.Unsafe<string | null>({ ...schema, nullable: true }));

export const NewIncidentSchema = Type.Object(
  {
    description: Type.String({
      minLength: 1,
      maxLength: 32_768,
      // At least one non-whitespace character: a blank report is as empty as a missing one.
      pattern: '\\S',
      description: 'What was observed. Required; must contain at least one non-whitespace character.',
    }),
    title: optionalNullable(
      Type.String({ maxLength: 200, description: 'Short summary; the first line of the description is used when absent' }),
    ),
    cve: optionalNullable(
      Type.String({ pattern: '^CVE-\\d{4}-\\d{4,}$', maxLength: 32, description: 'CVE identifier, e.g. CVE-2026-12345' }),
    ),
    sku: optionalNullable(
      Type.String({ maxLength: 100, description: "SKU of the affected product in the key's organisation; no match is not an error" }),
    ),
    gtin: optionalNullable(
      Type.String({
        maxLength: 32,
        description: 'GTIN-8/12/13/14 of the affected product, used when sku does not match; no match is not an error',
      }),
    ),
  },
  {
    $id: 'NewIncident',
    title: 'NewIncident',
    // With the app's removeAdditional, unknown fields are dropped before the handler: ignored, never stored.
    additionalProperties: false,
    description: 'An inbound security report. Unknown fields are ignored and not stored; an optional field sent as null counts as absent.',
  },
);

const nullableTimestamp = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const IncidentCreatedSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Identifier of the registered signal' }),
    incident_number: Type.Integer({ minimum: 1, description: 'Per-organisation number: 1, 2, 3 … without gaps' }),
    status: Type.Union([Type.Literal('INCOMING'), Type.Literal('OPEN')], {
      description:
        'INCOMING: a signal awaiting triage (intake mode `signal`). OPEN: a notifiable case was opened at once (intake mode `case`).',
    }),
    awareness_timestamp: nullableTimestamp(
      'Intake mode `case`: the instant of receipt (UTC). Intake mode `signal`: null, no clock runs yet.',
    ),
    early_warning_deadline: nullableTimestamp('Intake mode `case`: awareness + 24 h (CRA Art. 14). Intake mode `signal`: null.'),
    full_notification_deadline: nullableTimestamp('Intake mode `case`: awareness + 72 h (CRA Art. 14). Intake mode `signal`: null.'),
  },
  { $id: 'IncidentCreated', title: 'IncidentCreated', additionalProperties: false },
);

/**
 * An inbound signal as administrators see it (`cra-admin signal list` and the triage commands,
 * the console's signal lists). The reporter's identity and contact stay out: no door shows them.
 */
export const SignalSchema = Type.Object(
  {
    id: IncidentCreatedSchema.properties.id,
    incident_number: IncidentCreatedSchema.properties.incident_number,
    status: Type.String({ description: 'INCOMING, CASE_OPENED, DISMISSED or MERGED (cases/case-rules.ts)' }),
    received_at: Type.String({ format: 'date-time' }),
    source: Type.String({ description: '"api:<key name>" or "cli"' }),
    title: Type.Union([Type.String(), Type.Null()]),
    description: Type.String(),
    cve: Type.Union([Type.String(), Type.Null()]),
    sku: Type.Union([Type.String(), Type.Null()], { description: 'As sent' }),
    gtin: Type.Union([Type.String(), Type.Null()], { description: 'As sent' }),
    product_sku: Type.Union([Type.String(), Type.Null()], { description: 'The product it matched or was attributed to' }),
    triage_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it was dismissed' }),
    merged_into: Type.Union([Type.Integer(), Type.Null()], { description: 'The case it was merged into' }),
  },
  { additionalProperties: false },
);

export type NewIncident = Static<typeof NewIncidentSchema>;
export type SignalView = Static<typeof SignalSchema>;
export type IncidentCreated = Static<typeof IncidentCreatedSchema>;

/** Request and answer examples for the OpenAPI document (checked against the schemas and sent to the API by its tests). */
export const NEW_INCIDENT_EXAMPLES = {
  report: {
    summary: 'A report naming the product by SKU',
    value: {
      description: "Telnet is reachable on port 23 of the router's WAN interface (example report sent from the API documentation)",
      title: 'Telnet open on WAN',
      cve: 'CVE-2026-12345',
      sku: 'RTR-100',
    },
  },
  byGtin: {
    summary: 'Matched by GTIN when there is no SKU',
    value: { description: 'Firmware update accepts unsigned images (example report)', gtin: '4006381333931' },
  },
  minimal: {
    summary: 'Only the required description',
    value: { description: 'Suspicious outbound traffic from a device (example report)' },
  },
} satisfies Record<string, { summary: string; value: NewIncident }>;

export const INCIDENT_CREATED_EXAMPLES = {
  signal: {
    summary: 'Intake mode signal (default): no clock runs yet',
    value: {
      id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      incident_number: 7,
      status: 'INCOMING',
      awareness_timestamp: null,
      early_warning_deadline: null,
      full_notification_deadline: null,
    },
  },
  case: {
    summary: 'Intake mode case: a notifiable case with its 24 h / 72 h deadlines',
    value: {
      id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
      incident_number: 8,
      status: 'OPEN',
      awareness_timestamp: '2026-11-22T10:15:30.123Z',
      early_warning_deadline: '2026-11-23T10:15:30.123Z',
      full_notification_deadline: '2026-11-25T10:15:30.123Z',
    },
  },
} satisfies Record<string, { summary: string; value: IncidentCreated }>;
