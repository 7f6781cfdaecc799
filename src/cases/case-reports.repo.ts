import { randomUUID } from 'node:crypto';
import type { Executor } from '../db/index.js';
import type { CaseReportRow, CaseRow, StageName } from '../db/schema.js';
import type { StageFacts } from './stage-rules.js';

export type CaseReportUpdate = Partial<Omit<CaseReportRow, 'id' | 'org_id' | 'case_id' | 'stage' | 'seq'>>;

/** A report row of a case's stage, blank (an empty draft, nothing filed) apart from `change`. */
export function newReportRow(
  key: Pick<CaseReportRow, 'org_id' | 'case_id' | 'stage' | 'seq'>,
  change: CaseReportUpdate & { updated_at: string },
): CaseReportRow {
  const blank = {
    due_at: null,
    requested_at: null,
    fields: '{}',
    filed_at: null,
    srp_reference: null,
    filed_by: null,
    content: null,
    content_sha256: null,
    recorded_at: null,
  };
  return { id: randomUUID(), ...key, ...blank, ...change };
}

export const caseReportsRepo = {
  /** Writes `change` to the stage's report: a new row, or the existing one while it is not filed; false if it was filed meanwhile. */
  async save(
    db: Executor,
    key: Pick<CaseReportRow, 'org_id' | 'case_id' | 'stage' | 'seq'>,
    existing: CaseReportRow | undefined,
    change: CaseReportUpdate & { updated_at: string },
  ): Promise<boolean> {
    if (!existing) {
      await caseReportsRepo.insert(db, newReportRow(key, change));
      return true;
    }
    return caseReportsRepo.updateUnfiled(db, existing.id, change);
  },

  async insert(db: Executor, row: CaseReportRow): Promise<void> {
    await db.insertInto('case_reports').values(row).execute();
  },

  /** Changes a report only while it is not filed, so a filed report stays frozen; returns whether it changed. */
  async updateUnfiled(db: Executor, id: string, change: CaseReportUpdate): Promise<boolean> {
    const result = await db.updateTable('case_reports').set(change).where('id', '=', id).where('filed_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  find(db: Executor, caseId: string, stage: StageName, seq: number): Promise<CaseReportRow | undefined> {
    return db
      .selectFrom('case_reports')
      .selectAll()
      .where('case_id', '=', caseId)
      .where('stage', '=', stage)
      .where('seq', '=', seq)
      .executeTakeFirst();
  },

  /** Every report of the given cases, by stage and sequence. */
  async forCases(db: Executor, caseIds: readonly string[]): Promise<CaseReportRow[]> {
    if (caseIds.length === 0) return [];
    return db.selectFrom('case_reports').selectAll().where('case_id', 'in', caseIds).orderBy('stage').orderBy('seq').execute();
  },

  async lastIntermediateSeq(db: Executor, caseId: string): Promise<number> {
    const row = await db
      .selectFrom('case_reports')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('case_id', '=', caseId)
      .where('stage', '=', 'intermediate')
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  },
};

/** The facts the stage rules read, from a case row and its report rows. */
export function stageFacts(
  row: Pick<
    CaseRow,
    | 'kind'
    | 'notifiable'
    | 'early_warning_deadline'
    | 'full_notification_deadline'
    | 'early_warning_sent_at'
    | 'notification_sent_at'
    | 'fix_available_at'
  >,
  reports: readonly Pick<CaseReportRow, 'stage' | 'seq' | 'due_at' | 'filed_at'>[],
): StageFacts {
  return {
    kind: row.kind,
    notifiable: Number(row.notifiable) === 1,
    early_warning_deadline: row.early_warning_deadline,
    full_notification_deadline: row.full_notification_deadline,
    early_warning_sent_at: row.early_warning_sent_at,
    notification_sent_at: row.notification_sent_at,
    fix_available_at: row.fix_available_at,
    final_filed_at: reports.find((r) => r.stage === 'final')?.filed_at ?? null,
    intermediates: reports.filter((r) => r.stage === 'intermediate').map((r) => ({ seq: r.seq, due: r.due_at!, filed_at: r.filed_at })),
  };
}
