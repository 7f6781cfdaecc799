import { type Static, Type } from '@sinclair/typebox';

export const ActiveTimerSchema = Type.Object(
  {
    incident_number: Type.Integer({ minimum: 1 }),
    title: Type.String({ description: "The case's title (by default the first line of the report, at most 120 characters)" }),
    early_warning_deadline: Type.String({ format: 'date-time', description: 'Awareness + 24 h' }),
    full_notification_deadline: Type.String({ format: 'date-time', description: 'Awareness + 72 h' }),
  },
  {
    $id: 'ActiveTimer',
    title: 'ActiveTimer',
    additionalProperties: false,
    description: 'An open notifiable case whose early warning or notification has not been recorded as sent yet',
  },
);

export const ComplianceScoreSchema = Type.Object(
  {
    cra_health_score: Type.Integer({
      minimum: 0,
      maximum: 100,
      description:
        'Starts at 100; minus 30 × (100 − sbom_coverage_percent) / 100; minus 20 per passed, unmet deadline of an open notifiable case ' +
        '(at most 40); minus 10 per active product past its end of support (at most 20); minus 10 when mttn_seconds > 86400. ' +
        'Clamped to 0..100 and rounded.',
    }),
    mttn_seconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'Mean time from awareness to the early warning, over cases that sent one, rounded to seconds; null when none has',
    }),
    sbom_coverage_percent: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'round(100 × active products with an SBOM / active products); 100 when there is no active product',
    }),
    open_incidents: Type.Integer({ minimum: 0, description: "The organisation's open cases (signals awaiting triage are not incidents)" }),
    generated_at: Type.String({ format: 'date-time', description: 'When this score was computed' }),
    active_timers: Type.Array(Type.Ref(ActiveTimerSchema), {
      description: 'Running 24 h / 72 h clocks, earliest early-warning deadline first',
    }),
  },
  { $id: 'ComplianceScore', title: 'ComplianceScore', additionalProperties: false },
);

/** The score as the OpenAPI document shows it (checked against ComplianceScore by the OpenAPI test). */
export const COMPLIANCE_SCORE_EXAMPLE: Static<typeof ComplianceScoreSchema> = {
  cra_health_score: 65,
  mttn_seconds: 43_200,
  sbom_coverage_percent: 50,
  open_incidents: 2,
  generated_at: '2026-11-22T10:15:30.123Z',
  active_timers: [
    {
      incident_number: 3,
      title: 'Telnet open on WAN',
      early_warning_deadline: '2026-11-23T08:00:00.000Z',
      full_notification_deadline: '2026-11-25T08:00:00.000Z',
    },
  ],
};
