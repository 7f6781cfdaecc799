import { caseReportsRepo, stageFacts } from './case-reports.repo.js';
import { caseStages, FINAL_REPORT_DAYS_AFTER_FIX } from './stage-rules.js';
import type { Database } from '../db/index.js';

/** An unfiled stage with a due time, as the scheduler sees it (every stage of `caseStages`). */
export interface DueStage {
  case_id: string;
  org_id: string;
  incident_number: number;
  stage: string;
  /** 1, 2, … for intermediate reports; 0 for the other stages. */
  seq: number;
  due: string;
}

const DAY_MS = 86_400_000;
/** The shortest calendar month: an incident's final report is due at least this long after its notification. */
const MONTH_MIN_MS = 28 * DAY_MS;

/**
 * Unfiled stages of open notifiable cases due at or before `horizon` (overdue ones included):
 * every stage `caseStages` knows (early warning, notification, each intermediate report, the
 * final report), with the due times the case page shows. SQL narrows the cases to those that
 * may have such a stage (so a tick reads few rows however many cases are open); the stage
 * rules then decide exactly.
 */
export async function dueStages(database: Database, now: Date, horizon: Date): Promise<DueStage[]> {
  const horizonIso = horizon.toISOString();
  const fixBefore = new Date(horizon.getTime() - FINAL_REPORT_DAYS_AFTER_FIX * DAY_MS).toISOString();
  const notificationBefore = new Date(horizon.getTime() - MONTH_MIN_MS).toISOString();
  const rows = await database.db
    .selectFrom('cases as c')
    .select([
      'c.id',
      'c.org_id',
      'c.incident_number',
      'c.kind',
      'c.notifiable',
      'c.early_warning_deadline',
      'c.full_notification_deadline',
      'c.early_warning_sent_at',
      'c.notification_sent_at',
      'c.fix_available_at',
    ])
    .where('c.status', '=', 'open')
    .where('c.notifiable', '=', 1)
    .where((eb) => {
      const finalUnfiled = eb.not(
        eb.exists(
          eb
            .selectFrom('case_reports as f')
            .select('f.id')
            .whereRef('f.case_id', '=', 'c.id')
            .where('f.stage', '=', 'final')
            .where('f.filed_at', 'is not', null),
        ),
      );
      return eb.or([
        eb.and([eb('c.early_warning_sent_at', 'is', null), eb('c.early_warning_deadline', '<=', horizonIso)]),
        eb.and([eb('c.notification_sent_at', 'is', null), eb('c.full_notification_deadline', '<=', horizonIso)]),
        eb.exists(
          eb
            .selectFrom('case_reports as i')
            .select('i.id')
            .whereRef('i.case_id', '=', 'c.id')
            .where('i.stage', '=', 'intermediate')
            .where('i.filed_at', 'is', null)
            .where('i.due_at', '<=', horizonIso),
        ),
        eb.and([eb('c.kind', '=', 'vulnerability'), eb('c.fix_available_at', '<=', fixBefore), finalUnfiled]),
        eb.and([
          eb('c.kind', '=', 'incident'),
          eb.or([
            eb('c.notification_sent_at', '<=', notificationBefore),
            eb.and([eb('c.notification_sent_at', 'is', null), eb('c.full_notification_deadline', '<=', notificationBefore)]),
          ]),
          finalUnfiled,
        ]),
      ]);
    })
    .execute();
  if (rows.length === 0) return [];
  const reports = await caseReportsRepo.forCases(
    database.db,
    rows.map((r) => r.id),
  );
  return rows.flatMap((row) => {
    const facts = stageFacts(
      row,
      reports.filter((r) => r.case_id === row.id),
    );
    return caseStages(facts, now)
      .filter((s) => s.filed_at === null && s.due !== null && s.due <= horizonIso)
      .map((s) => ({
        case_id: row.id,
        org_id: row.org_id,
        incident_number: row.incident_number,
        stage: s.stage,
        seq: s.seq,
        due: s.due!,
      }));
  });
}
