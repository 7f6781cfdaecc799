import { createHash } from 'node:crypto';
import type { Database, Executor } from '../db/index.js';
import type { CaseReportRow, Organisation, StageName } from '../db/schema.js';
import { AppError } from '../errors.js';
import { signalsRepo } from '../incidents/signals.repo.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { productsRepo } from '../products/products.repo.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { assertStorableText } from '../shared/storable-text.js';
import { emitReportFiled } from './case-events.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { caseContextRepo } from './case-context.repo.js';
import { caseReportsRepo, newReportRow } from './case-reports.repo.js';
import { casesRepo, type CaseWithProduct } from './cases.repo.js';
import type { CaseService } from './cases.service.js';
import { CATALOGUE_VERSION, checkFields, formFields, missingFields, recipient, reportText, type ReportFields } from './report-catalogue.js';
import { exploitedContext } from '../vulns/services/exploited-context.js';
import { prefillFields } from './report-prefill.js';
import { stageLabel, type StageState } from './stage-rules.js';

// Article 14 reports (art14.md "Reports"): one per stage (one per CSIRT request for intermediate
// reports), a draft saved any number of times and pre-filled from what the platform knows, then
// filed once: the filing records when it went to the SRP, the SRP's reference and who filed it,
// freezes the content and puts its canonical JSON's SHA-256 into the registry entry.

export interface ReportView {
  incident_number: number;
  stage: StageName;
  seq: number;
  kind: 'vulnerability' | 'incident';
  catalogue_version: string;
  recipient: string;
  due: string | null;
  state: StageState;
  fields: ReportFields;
  /** Fields whose value comes from the platform's data, not from the draft. */
  prefilled: string[];
  missing: string[];
  filed: {
    filed_at: string;
    srp_reference: string | null;
    filed_by: string | null;
    content_sha256: string | null;
    without_content: boolean;
  } | null;
}

export interface FileInput {
  reference: string;
  at?: Date;
  /** The person who filed it in the SRP. */
  filedBy: string;
  seq?: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function createCaseReportService(database: Database, orgs: OrgService, cases: CaseService, options: { clock?: Clock } = {}) {
  const clock = options.clock ?? systemClock;

  async function load(orgSlug: string, incidentNumber: number) {
    const org = await orgs.requireOrg(orgSlug);
    const kase = await cases.requireCase(org.id, incidentNumber);
    if (kase.notifiable !== 1) throw new AppError('conflict', `case ${incidentNumber} is not notifiable: it has no Article 14 reports`);
    return { org, kase };
  }

  /** The report row of a stage: intermediate reports by number, else the first not yet filed (else the last). */
  async function reportRow(
    db: Executor,
    kase: CaseWithProduct,
    stage: StageName,
    seq?: number,
  ): Promise<{ seq: number; row: CaseReportRow | undefined }> {
    if (stage !== 'intermediate') {
      if (seq !== undefined && seq !== 0) throw new AppError('validation_failed', `only intermediate reports are numbered`);
      return { seq: 0, row: await caseReportsRepo.find(db, kase.id, stage, 0) };
    }
    const all = (await caseReportsRepo.forCases(db, [kase.id])).filter((r) => r.stage === 'intermediate');
    if (all.length === 0)
      throw new AppError(
        'conflict',
        `the CSIRT has not asked for an intermediate report of case ${kase.incident_number} (record it with case intermediate-requested)`,
      );
    const row = seq !== undefined ? all.find((r) => r.seq === seq) : (all.find((r) => r.filed_at === null) ?? all[all.length - 1]);
    if (!row) throw new AppError('not_found', `case ${kase.incident_number} has no intermediate report ${seq}`);
    return { seq: row.seq, row };
  }

  /** The platform's values for the stage's form. */
  async function prefill(org: Organisation, kase: CaseWithProduct, stage: StageName): Promise<ReportFields> {
    const product = kase.product_id ? ((await productsRepo.findBySku(database.db, org.id, kase.product_sku!)) ?? null) : null;
    const releases = product ? await caseContextRepo.releases(database.db, product.id) : [];
    const atAwareness = releases.filter((r) => r.created_at <= kase.aware_at).map((r) => r.version);
    const versions = atAwareness.length
      ? atAwareness
      : releases.length
        ? releases.map((r) => r.version)
        : product?.firmware_version
          ? [product.firmware_version]
          : [];
    const signal = await signalsRepo.findByNumber(database.db, org.id, kase.incident_number);
    const merged = await caseContextRepo.mergedSignals(database.db, org.id, kase.incident_number);
    const cves = [signal?.cve, ...merged.map((m) => m.cve)].filter((c): c is string => !!c);
    // A case opened from an exploited finding starts from what the platform matched.
    const exploited = signal ? await exploitedContext(database.db, signal.id) : null;
    const all = prefillFields({
      org,
      kase,
      product,
      versions: exploited?.releases.length ? exploited.releases : versions,
      signalDescription: signal?.description ?? '',
      cves: exploited ? [...cves, exploited.cve, exploited.euvd].filter((c): c is string => !!c) : cves,
      vulnerability: exploited,
    });
    // What was filed in earlier stages carries over (the person confirmed it once already).
    const order = ['early_warning', 'notification', 'intermediate', 'final'];
    const filed = (await caseReportsRepo.forCases(database.db, [kase.id]))
      .filter((r) => r.content !== null && order.indexOf(r.stage) < order.indexOf(stage))
      .sort((a, b) => order.indexOf(a.stage) - order.indexOf(b.stage) || a.seq - b.seq);
    for (const r of filed) Object.assign(all, (JSON.parse(r.content!) as { fields: ReportFields }).fields);
    const onForm = new Set(formFields(stage, kase.kind).map((f) => f.key));
    return Object.fromEntries(Object.entries(all).filter(([k]) => onForm.has(k)));
  }

  async function viewOf(
    org: Organisation,
    kase: CaseWithProduct,
    stage: StageName,
    seq: number,
    row: CaseReportRow | undefined,
  ): Promise<ReportView> {
    const caseView = await cases.view(kase, clock());
    const status = caseView.stages.find((s) => s.stage === stage && s.seq === seq);
    let fields: ReportFields;
    let prefilled: string[] = [];
    if (row?.content) {
      fields = (JSON.parse(row.content) as { fields: ReportFields }).fields;
    } else {
      const draft = row ? (JSON.parse(row.fields) as ReportFields) : {};
      const known = await prefill(org, kase, stage);
      prefilled = Object.keys(known).filter((k) => !(k in draft));
      fields = { ...known, ...draft };
    }
    return {
      incident_number: kase.incident_number,
      stage,
      seq,
      kind: kase.kind,
      catalogue_version: CATALOGUE_VERSION,
      recipient: recipient(fields.member_state as string | undefined),
      due: status?.due ?? null,
      state: status?.state ?? 'waiting',
      fields,
      prefilled,
      missing: missingFields(stage, kase.kind, fields),
      filed: row?.filed_at
        ? {
            filed_at: row.filed_at,
            srp_reference: row.srp_reference,
            filed_by: row.filed_by,
            content_sha256: row.content_sha256,
            without_content: row.content === null,
          }
        : null,
    };
  }

  async function getReport(orgSlug: string, incidentNumber: number, stage: StageName, seq?: number): Promise<ReportView> {
    const { org, kase } = await load(orgSlug, incidentNumber);
    const found = await reportRow(database.db, kase, stage, seq);
    return viewOf(org, kase, stage, found.seq, found.row);
  }

  return {
    getReport,

    async reportText(orgSlug: string, incidentNumber: number, stage: StageName, seq?: number): Promise<string> {
      const report = await getReport(orgSlug, incidentNumber, stage, seq);
      const filed = report.filed?.srp_reference ? { at: report.filed.filed_at, reference: report.filed.srp_reference } : undefined;
      return reportText({ stage, seq: report.seq, kind: report.kind, incidentNumber, fields: report.fields, filed });
    },

    /** Saves draft values (checked against the catalogue; an empty value clears a field). */
    async saveDraft(orgSlug: string, incidentNumber: number, stage: StageName, values: ReportFields, seq?: number): Promise<ReportView> {
      const { org, kase } = await load(orgSlug, incidentNumber);
      if (kase.status !== 'open') throw new AppError('conflict', `case ${incidentNumber} is closed`);
      const { fields, errors } = checkFields(stage, kase.kind, values);
      if (errors.length) throw new AppError('validation_failed', `the ${stageLabel(stage)} draft has invalid fields: ${errors.join('; ')}`);
      const now = iso(clock());
      const found = await reportRow(database.db, kase, stage, seq);
      if (found.row?.filed_at)
        throw new AppError(
          'conflict',
          `the ${stageLabel(stage, found.seq)} of case ${incidentNumber} was filed at ${found.row.filed_at}; a filed report is frozen`,
        );
      const merged = { ...(found.row ? (JSON.parse(found.row.fields) as ReportFields) : {}), ...fields };
      await database.transaction(async (trx) => {
        const key = { org_id: org.id, case_id: kase.id, stage, seq: found.seq };
        if (!(await caseReportsRepo.save(trx, key, found.row, { fields: JSON.stringify(merged), updated_at: now }))) {
          throw new AppError('conflict', `the ${stageLabel(stage, found.seq)} of case ${incidentNumber} was filed meanwhile`);
        }
      });
      return viewOf(org, kase, stage, found.seq, {
        ...(found.row ?? ({} as CaseReportRow)),
        fields: JSON.stringify(merged),
        content: null,
        filed_at: null,
      });
    },

    /** Records the filing in the SRP; refuses a report lacking a required field, naming every one. */
    async fileReport(orgSlug: string, incidentNumber: number, stage: StageName, input: FileInput): Promise<ReportView> {
      assertStorableText({ reference: input.reference, filed_by: input.filedBy });
      const { org, kase } = await load(orgSlug, incidentNumber);
      const label = stageLabel(stage, input.seq);
      if (kase.status !== 'open') throw new AppError('conflict', `case ${incidentNumber} is closed`);
      const reference = input.reference.trim();
      if (!reference) throw new AppError('validation_failed', 'filing needs the SRP reference (--reference)');
      const now = clock();
      const filedAt = input.at ?? now;
      if (filedAt.getTime() > now.getTime()) throw new AppError('validation_failed', `the filing time ${iso(filedAt)} is in the future`);
      if (filedAt.getTime() < Date.parse(kase.aware_at)) {
        throw new AppError('validation_failed', `the filing time ${iso(filedAt)} is before the case's awareness time ${kase.aware_at}`);
      }
      const found = await reportRow(database.db, kase, stage, input.seq);
      const sent = stage === 'early_warning' ? kase.early_warning_sent_at : stage === 'notification' ? kase.notification_sent_at : null;
      const already = found.row?.filed_at ?? sent;
      if (already)
        throw new AppError('conflict', `the ${stageLabel(stage, found.seq)} of case ${incidentNumber} was already filed at ${already}`);
      if (stage === 'final' && kase.kind === 'vulnerability' && kase.fix_available_at === null) {
        throw new AppError(
          'conflict',
          `case ${incidentNumber} is waiting for a corrective measure: record it (case fix-available) before the final report`,
        );
      }
      const report = await viewOf(org, kase, stage, found.seq, found.row);
      if (report.missing.length) {
        throw new AppError(
          'validation_failed',
          `cannot file the ${label} of case ${incidentNumber}: missing required fields: ${report.missing.join(', ')}`,
        );
      }
      const filedIso = iso(filedAt);
      const nowIso = iso(now);
      const content = canonicalJson({
        catalogue_version: CATALOGUE_VERSION,
        organisation: org.slug,
        incident_number: incidentNumber,
        kind: kase.kind,
        stage,
        seq: found.seq,
        recipient: report.recipient,
        fields: report.fields,
        filed_at: filedIso,
        srp_reference: reference,
        filed_by: input.filedBy,
      });
      const digest = sha256(content);
      const filed = {
        fields: JSON.stringify(report.fields),
        filed_at: filedIso,
        srp_reference: reference,
        filed_by: input.filedBy,
        content,
        content_sha256: digest,
        recorded_at: nowIso,
        updated_at: nowIso,
      };
      await database.transaction(async (trx) => {
        if (stage === 'early_warning' || stage === 'notification') {
          const column = stage === 'early_warning' ? 'early_warning_sent_at' : 'notification_sent_at';
          if (!(await casesRepo.updateOpen(trx, kase.id, { [column]: filedIso }, column)))
            throw new AppError('conflict', `case ${incidentNumber} changed meanwhile; retry`);
        }
        if (!(await caseReportsRepo.save(trx, { org_id: org.id, case_id: kase.id, stage, seq: found.seq }, found.row, filed))) {
          throw new AppError('conflict', `the ${label} of case ${incidentNumber} was filed meanwhile`);
        }
        const details = {
          incident_number: incidentNumber,
          stage,
          seq: found.seq,
          filed_at: filedIso,
          srp_reference: reference,
          filed_by: input.filedBy,
          due: report.due,
          on_time: report.due === null || filedIso <= report.due,
          catalogue_version: CATALOGUE_VERSION,
          content_sha256: digest,
        };
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: input.filedBy, action: 'case.report_filed', subject: `case ${incidentNumber}`, details },
          nowIso,
        );
        await emitReportFiled(
          trx,
          org.id,
          { incident_number: incidentNumber, stage, seq: found.seq, filed_at: filedIso, reference },
          nowIso,
        );
      });
      // Read back: the case row changed too (the send time of the early warning or notification).
      const after = await reportRow(database.db, kase, stage, found.seq);
      return viewOf(org, await cases.requireCase(org.id, incidentNumber), stage, after.seq, after.row);
    },

    /** 14(6): the CSIRT asked for an intermediate report, due at `due`. */
    async requestIntermediate(orgSlug: string, incidentNumber: number, due: Date, actor = 'cli'): Promise<ReportView> {
      const { org, kase } = await load(orgSlug, incidentNumber);
      if (kase.status !== 'open') throw new AppError('conflict', `case ${incidentNumber} is closed`);
      if (due.getTime() < Date.parse(kase.aware_at))
        throw new AppError('validation_failed', `the due time ${iso(due)} is before the case's awareness time ${kase.aware_at}`);
      const now = iso(clock());
      const row = await database.transaction(async (trx) => {
        const seq = (await caseReportsRepo.lastIntermediateSeq(trx, kase.id)) + 1;
        const inserted = newReportRow(
          { org_id: org.id, case_id: kase.id, stage: 'intermediate', seq },
          { due_at: iso(due), requested_at: now, updated_at: now },
        );
        await caseReportsRepo.insert(trx, inserted);
        const details = { incident_number: incidentNumber, seq, due: iso(due) };
        await appendRegistryEntry(
          trx,
          org.id,
          { actor, action: 'case.intermediate_requested', subject: `case ${incidentNumber}`, details },
          now,
        );
        return inserted;
      });
      return viewOf(org, kase, 'intermediate', row.seq, row);
    },

    /** A corrective or mitigating measure is available: a vulnerability's final report is due 14 days later. */
    async recordFix(orgSlug: string, incidentNumber: number, at: Date, description: string | undefined, actor = 'cli') {
      assertStorableText({ description });
      const { org, kase } = await load(orgSlug, incidentNumber);
      if (kase.status !== 'open') throw new AppError('conflict', `case ${incidentNumber} is closed`);
      if (kase.fix_available_at !== null)
        throw new AppError(
          'conflict',
          `the corrective measure of case ${incidentNumber} was already recorded (available ${kase.fix_available_at})`,
        );
      const now = clock();
      if (at.getTime() > now.getTime())
        throw new AppError('validation_failed', `the time ${iso(at)} is in the future: record a measure once it is available`);
      const change = { fix_available_at: iso(at), fix_description: description?.trim() || null };
      const nowIso = iso(now);
      await database.transaction(async (trx) => {
        if (!(await casesRepo.updateFix(trx, kase.id, change)))
          throw new AppError('conflict', `case ${incidentNumber} changed meanwhile; retry`);
        const details = { incident_number: incidentNumber, available_at: change.fix_available_at, description: change.fix_description };
        await appendRegistryEntry(trx, org.id, { actor, action: 'case.fix_available', subject: `case ${incidentNumber}`, details }, nowIso);
      });
      return cases.view({ ...kase, ...change }, now);
    },
  };
}

export type CaseReportService = ReturnType<typeof createCaseReportService>;
