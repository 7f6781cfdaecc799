import type { Trx } from '../db/index.js';
import type { CaseRow } from '../db/schema.js';
import { emitEvent } from '../webhooks/emit-event.js';

// The case events' payloads in one place: what a receiver learns of a case (webhooks.md), never
// its notes, the reporter or a draft.

/** `case.opened`, for a notifiable case only (the others have no clocks to wake anyone for). */
export async function emitCaseOpened(trx: Trx, row: CaseRow, productSku: string | null): Promise<void> {
  if (row.notifiable !== 1) return;
  const data = {
    incident_number: row.incident_number,
    kind: row.kind,
    title: row.title,
    product_sku: productSku,
    aware_at: row.aware_at,
    due: { early_warning: row.early_warning_deadline, notification: row.full_notification_deadline },
  };
  await emitEvent(trx, row.org_id, 'case.opened', data, row.created_at);
}

export async function emitCaseClosed(trx: Trx, orgId: string, incidentNumber: number, at: string): Promise<void> {
  await emitEvent(trx, orgId, 'case.closed', { incident_number: incidentNumber }, at);
}

/** `case.report_filed`: a stage's report was filed in the SRP (Article 14 reports, or a send recorded without content). */
export async function emitReportFiled(
  trx: Trx,
  orgId: string,
  report: { incident_number: number; stage: string; seq: number; filed_at: string; reference: string | null },
  at: string,
): Promise<void> {
  await emitEvent(trx, orgId, 'case.report_filed', report, at);
}
