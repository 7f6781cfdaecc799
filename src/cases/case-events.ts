import type { Trx } from '../db/index.js';

// The seam for webhooks (webhooks.md): every state change of a case or a triage calls the sink
// inside the transaction that makes the change, so an outbox row written there commits (or rolls
// back) with it. Stage due times pass with the clock alone; a scheduler finds them with
// `caseStages` (stage-rules.ts) rather than through this sink.

export type CaseEventType =
  | 'case.opened'
  | 'case.closed'
  | 'case.report_filed'
  | 'case.intermediate_requested'
  | 'case.fix_available'
  | 'signal.dismissed'
  | 'signal.merged'
  | 'signal.attributed';

export interface CaseEvent {
  type: CaseEventType;
  orgId: string;
  incidentNumber: number;
  at: string;
  /** What changed, as in the registry entry of the change (never a secret, never case notes). */
  data: Record<string, unknown>;
}

export type CaseEventSink = (trx: Trx, event: CaseEvent) => Promise<void>;

export const noCaseEvents: CaseEventSink = async () => {};
