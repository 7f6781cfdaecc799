import type { Trx } from '../db/index.js';
import type { CaseRow, SignalRow } from '../db/schema.js';
import { signalsRepo } from '../incidents/signals.repo.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { emitCaseOpened } from './case-events.js';
import { AppError } from '../errors.js';
import { SIGNAL_CASE_OPENED, SIGNAL_INCOMING } from '../incidents/signal-status.js';
import { newCaseRow, type NewCaseFields } from './case-rules.js';
import { casesRepo } from './cases.repo.js';

export interface OpenCaseFields extends NewCaseFields {
  /** The product's SKU as the registry entry names it (null: unattributed). */
  productSku: string | null;
  /** Who decided: `api:<key name>` for intake in case mode, `cli`, or `user:<email>`. */
  actor: string;
}

/**
 * Opens a case on `signal` inside the caller's transaction: the case row, the signal's status and
 * the `case.opened` registry entry and webhook event. The one place a case comes into being, for intake in mode
 * `case` (same transaction as the signal) and for the human decision (CLI, console).
 */
export async function openCase(trx: Trx, signal: SignalRow, fields: OpenCaseFields): Promise<CaseRow> {
  const row = newCaseRow(signal, fields);
  await casesRepo.insert(trx, row);
  // Only an INCOMING signal moves (intake in mode `case` stores it as CASE_OPENED already): a
  // concurrent dismissal or merge wins, and this opening fails instead of overwriting it.
  if (signal.status !== SIGNAL_CASE_OPENED && !(await signalsRepo.setStatusFrom(trx, signal.id, SIGNAL_INCOMING, SIGNAL_CASE_OPENED))) {
    throw new AppError('conflict', `signal ${signal.incident_number} was triaged meanwhile; list it and retry`);
  }
  const details = {
    incident_number: row.incident_number,
    kind: row.kind,
    notifiable: fields.notifiable,
    notifiable_reason: row.notifiable_reason,
    aware_at: row.aware_at,
    product_sku: fields.productSku,
  };
  await appendRegistryEntry(
    trx,
    signal.org_id,
    { actor: fields.actor, action: 'case.opened', subject: `case ${row.incident_number}`, details },
    fields.now,
  );
  await emitCaseOpened(trx, row, fields.productSku);
  return row;
}
