import type { Database } from '../db/index.js';
import { isUniqueViolation } from '../db/index.js';
import type { CaseKind, CaseReportRow, CaseStatus } from '../db/schema.js';
import { AppError } from '../errors.js';
import { signalsRepo } from '../incidents/signals.repo.js';
import type { OrgService } from '../orgs/orgs.service.js';
import type { ProductService } from '../products/products.service.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { emitCaseClosed, emitReportFiled } from './case-events.js';
import { assertUntriaged } from './case-rules.js';
import { caseReportsRepo, stageFacts } from './case-reports.repo.js';
import { caseStages, closeBlockers, stageLabel, type StageStatus } from './stage-rules.js';
import { casesRepo, type CaseWithProduct } from './cases.repo.js';
import { openCase } from './open-case.js';
import { assertStorableText } from '../shared/storable-text.js';

/** A case as the console shows it. Notes are confidential and never leave the database. */
export interface CaseView {
  id: string;
  incident_number: number;
  title: string;
  product_sku: string | null;
  notifiable: boolean;
  status: CaseStatus;
  aware_at: string;
  early_warning_deadline: string;
  full_notification_deadline: string;
  early_warning_sent_at: string | null;
  notification_sent_at: string | null;
  created_at: string;
  closed_at: string | null;
  kind: CaseKind;
  notifiable_reason: string | null;
  fix_available_at: string | null;
  /** Every stage with its due time, filing time and state; empty for a case that is not notifiable. */
  stages: StageStatus[];
}

export function toCaseView(row: CaseWithProduct, reports: readonly CaseReportRow[], now: Date): CaseView {
  return {
    id: row.id,
    incident_number: row.incident_number,
    title: row.title,
    product_sku: row.product_sku,
    notifiable: row.notifiable === 1,
    status: row.status,
    aware_at: row.aware_at,
    early_warning_deadline: row.early_warning_deadline,
    full_notification_deadline: row.full_notification_deadline,
    early_warning_sent_at: row.early_warning_sent_at,
    notification_sent_at: row.notification_sent_at,
    created_at: row.created_at,
    closed_at: row.closed_at,
    kind: row.kind,
    notifiable_reason: row.notifiable_reason,
    fix_available_at: row.fix_available_at,
    stages: caseStages(stageFacts(row, reports), now),
  };
}

export interface OpenCaseInput {
  signalNumber: number;
  notifiable?: boolean;
  /** Why the case is not notifiable; required when notifiable is explicitly false. */
  notifiableReason?: string;
  kind?: CaseKind;
  awareAt?: Date;
  productSku?: string;
  title?: string;
  note?: string;
  /** Who decided: `cli` (default) or `user:<email>` from the console. */
  actor?: string;
}

export interface CaseServiceOptions {
  clock?: Clock;
}

/** The longest note one addition may carry. */
export const NOTE_MAX = 10_000;

type Sent = 'early_warning_sent_at' | 'notification_sent_at';

export function createCaseService(
  database: Database,
  orgs: OrgService,
  products: Pick<ProductService, 'requireProduct'>,
  clockOrOptions: Clock | CaseServiceOptions = {},
) {
  const options = typeof clockOrOptions === 'function' ? { clock: clockOrOptions } : clockOrOptions;
  const clock = options.clock ?? systemClock;

  async function requireCase(orgId: string, incidentNumber: number): Promise<CaseWithProduct> {
    const row = await casesRepo.findByNumber(database.db, orgId, incidentNumber);
    if (!row) throw new AppError('not_found', `no case with incident number ${incidentNumber}`);
    return row;
  }

  async function view(row: CaseWithProduct, now: Date): Promise<CaseView> {
    return toCaseView(row, await caseReportsRepo.forCases(database.db, [row.id]), now);
  }

  function notInFuture(at: Date, now: Date, what: string): void {
    if (at.getTime() > now.getTime()) throw new AppError('validation_failed', `${what} ${iso(at)} is in the future`);
  }

  /**
   * Records when the early warning or the notification was sent, without report content (history
   * entered after the fact, or a report typed straight into the SRP); once per case.
   */
  async function recordSent(orgSlug: string, incidentNumber: number, column: Sent, at: Date | undefined, actor = 'cli'): Promise<CaseView> {
    const org = await orgs.requireOrg(orgSlug);
    const row = await requireCase(org.id, incidentNumber);
    const label = column === 'early_warning_sent_at' ? 'early warning' : 'notification';
    if (row.status !== 'open') throw new AppError('conflict', `case ${incidentNumber} is closed`);
    if (row[column] !== null)
      throw new AppError('conflict', `the ${label} of case ${incidentNumber} was already recorded at ${row[column]}`);
    const now = clock();
    const sentAt = at ?? now;
    notInFuture(sentAt, now, `the ${label} time`);
    // Sending before awareness would make the time-to-notify negative; it is a typo, not a fact.
    if (sentAt.getTime() < Date.parse(row.aware_at)) {
      throw new AppError('validation_failed', `the ${label} time ${iso(sentAt)} is before the case's awareness time ${row.aware_at}`);
    }
    const sentIso = iso(sentAt);
    const nowIso = iso(now);
    const stage = column === 'early_warning_sent_at' ? 'early_warning' : 'notification';
    const deadline = column === 'early_warning_sent_at' ? row.early_warning_deadline : row.full_notification_deadline;
    await database.transaction(async (trx) => {
      if (!(await casesRepo.updateOpen(trx, row.id, { [column]: sentIso }, column))) {
        throw new AppError('conflict', `case ${incidentNumber} changed meanwhile; list it and retry`);
      }
      // The stage's report row records the filing too, so the case's reports show it; no content.
      const filed = { filed_at: sentIso, filed_by: actor, recorded_at: nowIso, updated_at: nowIso };
      const existing = await caseReportsRepo.find(trx, row.id, stage, 0);
      if (!(await caseReportsRepo.save(trx, { org_id: org.id, case_id: row.id, stage, seq: 0 }, existing, filed))) {
        throw new AppError('conflict', `the ${label} of case ${incidentNumber} was filed meanwhile`);
      }
      const details = {
        incident_number: incidentNumber,
        sent_at: sentIso,
        deadline,
        on_time: sentIso <= deadline,
        without_content: true,
        note: 'recorded without report content',
      };
      await appendRegistryEntry(
        trx,
        org.id,
        {
          actor,
          action: column === 'early_warning_sent_at' ? 'case.early_warning_recorded' : 'case.notification_recorded',
          subject: `case ${incidentNumber}`,
          details,
        },
        nowIso,
      );
      await emitReportFiled(trx, org.id, { incident_number: incidentNumber, stage, seq: 0, filed_at: sentIso, reference: null }, nowIso);
    });
    return view({ ...row, [column]: sentIso }, now);
  }

  return {
    requireCase,
    view,

    /** The human decision of decisions §2 and art14.md: a signal becomes a case with the same number. */
    async openCase(orgSlug: string, input: OpenCaseInput): Promise<CaseView> {
      assertStorableText({ title: input.title, note: input.note, reason: input.notifiableReason, product: input.productSku });
      const org = await orgs.requireOrg(orgSlug);
      const signal = await signalsRepo.findByNumber(database.db, org.id, input.signalNumber);
      if (!signal) throw new AppError('not_found', `no signal with incident number ${input.signalNumber}`);
      const duplicate = () =>
        new AppError('conflict', `signal ${input.signalNumber} already has a case; a signal becomes at most one case`);
      if (await casesRepo.findByNumber(database.db, org.id, input.signalNumber)) throw duplicate();
      assertUntriaged(signal);
      if (input.notifiable === false && !input.notifiableReason?.trim()) {
        throw new AppError('validation_failed', 'a case that is not notifiable needs the reason (--reason)');
      }
      if (input.notifiable === true && input.notifiableReason !== undefined) {
        throw new AppError('validation_failed', 'a reason is given only for a case that is not notifiable');
      }
      let productId = signal.product_id;
      let productSku = signal.product_sku;
      if (input.productSku !== undefined) {
        const product = await products.requireProduct(org.id, input.productSku);
        productId = product.id;
        productSku = product.sku;
      }
      const now = clock();
      const awareAt = input.awareAt ?? now;
      notInFuture(awareAt, now, 'the awareness time');
      const fields = {
        productId,
        productSku,
        title: input.title,
        notifiable: input.notifiable ?? false,
        notifiableReason: input.notifiableReason,
        kind: input.kind,
        awareAt,
        note: input.note,
        now: iso(now),
        actor: input.actor ?? 'cli',
      };
      const row = await database
        .transaction((trx) => openCase(trx, signal, fields))
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? duplicate() : error;
        });
      return toCaseView({ ...row, product_sku: productSku }, [], now);
    },

    async listCases(orgSlug: string): Promise<CaseView[]> {
      const org = await orgs.requireOrg(orgSlug);
      const rows = await casesRepo.list(database.db, org.id);
      const reports = await caseReportsRepo.forCases(
        database.db,
        rows.map((r) => r.id),
      );
      const now = clock();
      const byCase = new Map<string, typeof reports>();
      for (const report of reports) {
        const list = byCase.get(report.case_id);
        if (list) list.push(report);
        else byCase.set(report.case_id, [report]);
      }
      return rows.map((r) => toCaseView(r, byCase.get(r.id) ?? [], now));
    },

    /** One case by its incident number; another organisation's number is not found. */
    async getCase(orgSlug: string, incidentNumber: number): Promise<CaseView> {
      const org = await orgs.requireOrg(orgSlug);
      return view(await requireCase(org.id, incidentNumber), clock());
    },

    /** The confidential notes: for the organisation's own people in the console, never the API. */
    async caseNotes(orgSlug: string, incidentNumber: number): Promise<string | null> {
      const org = await orgs.requireOrg(orgSlug);
      return (await requireCase(org.id, incidentNumber)).notes;
    },

    /**
     * Adds a confidential note (console.md): appended under a line naming who wrote it and when.
     * The registry records that a note was added and its length, never its text.
     */
    async addNote(orgSlug: string, incidentNumber: number, text: string, actor = 'cli'): Promise<string> {
      const note = text.replace(/\r\n/g, '\n').trim();
      if (!note) throw new AppError('validation_failed', 'the note is empty');
      if (note.length > NOTE_MAX) throw new AppError('validation_failed', `a note has at most ${NOTE_MAX} characters`);
      assertStorableText({ note });
      const org = await orgs.requireOrg(orgSlug);
      const row = await requireCase(org.id, incidentNumber);
      const now = iso(clock());
      const notes = `${row.notes ? `${row.notes}\n\n` : ''}— ${actor}, ${now}\n${note}`;
      await database.transaction(async (trx) => {
        if (!(await casesRepo.setNotes(trx, row.id, row.notes, notes)))
          throw new AppError('conflict', `the notes of case ${incidentNumber} changed meanwhile; reload and add yours again`);
        const details = { incident_number: incidentNumber, characters: note.length };
        await appendRegistryEntry(trx, org.id, { actor, action: 'case.note_added', subject: `case ${incidentNumber}`, details }, now);
      });
      return notes;
    },

    recordEarlyWarning: (orgSlug: string, incidentNumber: number, at?: Date, actor?: string) =>
      recordSent(orgSlug, incidentNumber, 'early_warning_sent_at', at, actor),
    recordNotification: (orgSlug: string, incidentNumber: number, at?: Date, actor?: string) =>
      recordSent(orgSlug, incidentNumber, 'notification_sent_at', at, actor),

    /** Closes a case; a notifiable one only once every stage that is due has been filed. */
    async closeCase(orgSlug: string, incidentNumber: number, actor = 'cli'): Promise<CaseView> {
      const org = await orgs.requireOrg(orgSlug);
      const row = await requireCase(org.id, incidentNumber);
      if (row.status !== 'open') throw new AppError('conflict', `case ${incidentNumber} is already closed`);
      const current = clock();
      const before = await view(row, current);
      const blockers = closeBlockers(before.stages);
      if (blockers.length > 0) {
        const names = blockers.map(
          (b) =>
            `${stageLabel(b.stage, b.seq)} (${b.state === 'waiting' ? 'waiting for a corrective measure' : `${b.state}, due ${b.due}`})`,
        );
        throw new AppError('conflict', `case ${incidentNumber} cannot close: not yet filed: ${names.join('; ')}`);
      }
      const now = iso(current);
      await database.transaction(async (trx) => {
        if (!(await casesRepo.updateOpen(trx, row.id, { status: 'closed', closed_at: now }))) {
          throw new AppError('conflict', `case ${incidentNumber} is already closed`);
        }
        const details = {
          incident_number: incidentNumber,
          early_warning_sent: row.early_warning_sent_at !== null,
          notification_sent: row.notification_sent_at !== null,
        };
        await appendRegistryEntry(trx, org.id, { actor, action: 'case.closed', subject: `case ${incidentNumber}`, details }, now);
        await emitCaseClosed(trx, org.id, incidentNumber, now);
      });
      return { ...before, status: 'closed', closed_at: now };
    },
  };
}

export type CaseService = ReturnType<typeof createCaseService>;
