import { randomUUID } from 'node:crypto';
import type { Database, Executor, Trx } from '../db/index.js';
import type { CaseRow, IntakeMode, SignalRow } from '../db/schema.js';
import { normaliseGtin } from '../products/gtin.js';
import { productsRepo } from '../products/products.repo.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { assertStorableText } from '../shared/storable-text.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { viewOf } from '../shared/schema-view.js';
import { type IncidentCreated, type NewIncident, SignalSchema, type SignalView } from './incidents.schemas.js';
import { SIGNAL_CASE_OPENED, SIGNAL_INCOMING } from './signal-status.js';
import { signalsRepo, type SignalWithProduct } from './signals.repo.js';

/**
 * Opens a case on a signal inside the caller's transaction: intake in mode `case` stores the
 * signal and its case together. The cases feature provides it (cases/open-case.ts); the
 * composition root hands it in, so signals know nothing of cases.
 */
export type OpenCaseAtIntake = (
  trx: Trx,
  signal: SignalRow,
  fields: { productId: string | null; productSku: string | null; notifiable: boolean; awareAt: Date; now: string; actor: string },
) => Promise<Pick<CaseRow, 'aware_at' | 'early_warning_deadline' | 'full_notification_deadline'>>;

export interface IncidentServiceOptions {
  clock?: Clock;
  /** Needed by organisations in intake mode `case`; without it their reports are refused. */
  openCase?: OpenCaseAtIntake;
}

/** A signal as administrators see it (SignalSchema): the one shape of every listing. */
export function toSignalView(signal: SignalWithProduct): SignalView {
  return viewOf(SignalSchema, signal);
}

/** Who sent the report: the key's organisation and a source label such as "api:<key name>". */
export interface Reporter {
  orgId: string;
  source: string;
}

/** Absent, null and blank optional strings carry no information; they are stored as null. */
function optional(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/**
 * The organisation's product the report names: by SKU, else by GTIN (normalised; an invalid one
 * simply matches nothing). Only ever within `orgId`, so another tenant's SKU never matches.
 */
export async function matchProduct(
  db: Executor,
  orgId: string,
  sku: string | null,
  gtin: string | null,
): Promise<{ id: string; sku: string } | null> {
  if (sku) {
    const bySku = await productsRepo.findBySku(db, orgId, sku);
    if (bySku) return { id: bySku.id, sku: bySku.sku };
  }
  const normalised = gtin ? normaliseGtin(gtin) : null;
  if (normalised) {
    const byGtin = await productsRepo.findByGtin(db, orgId, normalised);
    if (byGtin) return { id: byGtin.id, sku: byGtin.sku };
  }
  return null;
}

/**
 * Numbers and stores a signal with its `signal.received` registry entry, in the caller's
 * transaction: the one place a signal comes into being.
 */
async function storeSignal(
  trx: Trx,
  input: {
    orgId: string;
    source: string;
    at: string;
    product: { id: string; sku: string } | null;
    fields: Pick<SignalRow, 'description' | 'title' | 'cve' | 'sku' | 'gtin'>;
    status: (intakeMode: IntakeMode) => string;
  },
): Promise<{ signal: SignalRow; intakeMode: IntakeMode }> {
  const { incidentNumber, intakeMode } = await signalsRepo.claimIncidentNumber(trx, input.orgId);
  const signal: SignalRow = {
    id: randomUUID(),
    org_id: input.orgId,
    incident_number: incidentNumber,
    status: input.status(intakeMode),
    ...input.fields,
    product_id: input.product?.id ?? null,
    received_at: input.at,
    source: input.source,
    reporter_name: null,
    reporter_contact: null,
    triage_reason: null,
    merged_into: null,
  };
  await signalsRepo.insert(trx, signal);
  const details = { incident_number: incidentNumber, product_sku: input.product?.sku ?? null, cve: signal.cve, intake_mode: intakeMode };
  await appendRegistryEntry(
    trx,
    input.orgId,
    { actor: input.source, action: 'signal.received', subject: `signal ${incidentNumber}`, details },
    input.at,
  );
  return { signal, intakeMode };
}

/**
 * A signal the platform raises itself (an exploited vulnerability in a product on the market):
 * INCOMING whatever the intake mode, since awareness stays a person's decision (art14.md), in
 * the caller's transaction.
 */
export async function raiseSignal(
  trx: Trx,
  input: {
    orgId: string;
    source: string;
    at: string;
    product: { id: string; sku: string };
    title: string;
    description: string;
    cve: string | null;
  },
): Promise<SignalRow> {
  assertStorableText({ description: input.description, title: input.title });
  const fields = { description: input.description, title: input.title, cve: input.cve, sku: input.product.sku, gtin: null };
  const { signal } = await storeSignal(trx, { ...input, fields, status: () => SIGNAL_INCOMING });
  return signal;
}

/**
 * A report from outside the organisation (the disclosure form, disclosure.md): INCOMING whatever
 * the intake mode (awareness is a person's decision), numbered in the organisation's one
 * sequence, in the caller's transaction, which also stores what the report carries beyond a signal.
 */
export async function receiveOutsideReport(
  trx: Trx,
  input: {
    orgId: string;
    source: string;
    at: string;
    product: { id: string; sku: string } | null;
    title: string | null;
    description: string;
    cve: string | null;
  },
): Promise<SignalRow> {
  assertStorableText({ description: input.description, title: input.title, cve: input.cve });
  const fields = {
    description: input.description,
    title: optional(input.title),
    cve: input.cve,
    sku: input.product?.sku ?? null,
    gtin: null,
  };
  const { signal } = await storeSignal(trx, { ...input, fields, status: () => SIGNAL_INCOMING });
  return signal;
}

export function createIncidentService(database: Database, orgs: OrgService, options: IncidentServiceOptions = {}) {
  const clock = options.clock ?? systemClock;
  const openCase: OpenCaseAtIntake =
    options.openCase ??
    (() => {
      throw new Error('intake mode `case` needs the case service (services.ts wires it)');
    });
  return {
    /**
     * Registers an inbound report (decisions §1). Numbering, the signal, the case (intake mode
     * `case`) and the registry entries commit together in one durable transaction.
     */
    async receiveSignal(reporter: Reporter, input: NewIncident): Promise<IncidentCreated> {
      assertStorableText({ description: input.description, title: input.title, cve: input.cve, sku: input.sku, gtin: input.gtin });
      const sku = optional(input.sku);
      const gtin = optional(input.gtin);
      // Products are never deleted, so matching outside the transaction keeps it short.
      const product = await matchProduct(database.db, reporter.orgId, sku, gtin);
      const received = clock();
      const receivedAt = iso(received);
      // Numbering takes the organisation's row lock: a burst of one organisation's reports
      // queues in this process, not on that lock with a pooled connection each.
      const queue = { queue: `organisation ${reporter.orgId}` };
      return database.transaction(async (trx) => {
        const { signal, intakeMode } = await storeSignal(trx, {
          orgId: reporter.orgId,
          source: reporter.source,
          at: receivedAt,
          product,
          fields: { description: input.description, title: optional(input.title), cve: input.cve ?? null, sku, gtin },
          status: (mode) => (mode === 'case' ? SIGNAL_CASE_OPENED : SIGNAL_INCOMING),
        });
        const incidentNumber = signal.incident_number;
        if (intakeMode !== 'case') {
          return {
            id: signal.id,
            incident_number: incidentNumber,
            status: 'INCOMING',
            awareness_timestamp: null,
            early_warning_deadline: null,
            full_notification_deadline: null,
          };
        }
        // Intake mode `case`: the machine-readable description's behaviour, awareness = receipt.
        const kase = await openCase(trx, signal, {
          productId: signal.product_id,
          productSku: product?.sku ?? null,
          notifiable: true,
          awareAt: received,
          now: receivedAt,
          actor: reporter.source,
        });
        return {
          id: signal.id,
          incident_number: incidentNumber,
          status: 'OPEN',
          awareness_timestamp: kase.aware_at,
          early_warning_deadline: kase.early_warning_deadline,
          full_notification_deadline: kase.full_notification_deadline,
        };
      }, queue);
    },

    /** Inbound signals, or only those that matched no product ("unattributed reports"). */
    async listSignals(orgSlug: string, options: { unattributed?: boolean } = {}): Promise<SignalView[]> {
      const org = await orgs.requireOrg(orgSlug);
      return (await signalsRepo.list(database.db, org.id, options)).map(toSignalView);
    },
  };
}

export type IncidentService = ReturnType<typeof createIncidentService>;
