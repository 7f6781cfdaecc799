/** The platform's events (webhooks.md); nothing else is ever delivered. */
export const EVENT_TYPES = [
  'case.opened',
  'case.stage_due_soon',
  'case.stage_overdue',
  'case.report_filed',
  'case.closed',
  'key.expiring',
  'signal.received',
  'registry.verification_failed',
  'finding.exploited',
  'findings.new',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
