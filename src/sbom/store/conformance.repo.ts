import type { Executor, Trx } from '../../db/index.js';
import type { ConformanceReport } from '../conformance/conformance.js';

/** A stored report's summary: what the API's answer and the console's badges show. */
export interface ConformanceSummary {
  profile: string;
  profile_version: string;
  conforms: boolean;
  missing_required: string[];
  /** The report's findings (format_below_floor first when the document is below the profile's floor). */
  findings: string[];
}

function summaryOf(row: { profile: string; profile_version: string; conforms: number; missing_required: string; report: string }) {
  const report = JSON.parse(row.report) as ConformanceReport;
  return {
    profile: row.profile,
    profile_version: row.profile_version,
    conforms: Number(row.conforms) === 1,
    missing_required: row.missing_required === '' ? [] : row.missing_required.split(','),
    findings: report.findings,
  };
}

/** A product's newest revision (the one most recently ingested). */
export interface LatestRevision {
  product_id: string;
  sbom_id: string;
  release_version: string;
  revision: number;
}

export const conformanceRepo = {
  /** Each product's newest revision (the most recently ingested; of two at once, the later revision), for the organisation's products that have one. */
  latestRevisions(db: Executor, orgId: string): Promise<LatestRevision[]> {
    return db
      .selectFrom('sbom_revisions as s')
      .innerJoin('releases as r', 'r.id', 's.release_id')
      .select(['s.product_id', 's.id as sbom_id', 'r.version as release_version', 's.revision'])
      .where('s.org_id', '=', orgId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('sbom_revisions as n')
              .select('n.id')
              .whereRef('n.product_id', '=', 's.product_id')
              .where((eb) =>
                eb.or([
                  eb('n.ingested_at', '>', eb.ref('s.ingested_at')),
                  eb.and([eb('n.ingested_at', '=', eb.ref('s.ingested_at')), eb('n.id', '>', eb.ref('s.id'))]),
                ]),
              ),
          ),
        ),
      )
      .execute();
  },

  /** The organisation's SBOM policy: `report` or `require:<profile id>`. */
  async policyOf(db: Executor, orgId: string): Promise<string> {
    const row = await db.selectFrom('organisations').select('sbom_policy').where('id', '=', orgId).executeTakeFirst();
    return row?.sbom_policy ?? 'report';
  },

  async setPolicy(trx: Trx, orgId: string, policy: string): Promise<void> {
    await trx.updateTable('organisations').set({ sbom_policy: policy }).where('id', '=', orgId).execute();
  },

  /** A new revision's reports, in its ingest transaction. */
  async insertReports(trx: Trx, sbomId: string, reports: readonly ConformanceReport[], at: string): Promise<void> {
    if (reports.length === 0) return;
    await trx
      .insertInto('sbom_conformance')
      .values(
        reports.map((r) => ({
          sbom_id: sbomId,
          profile: r.profile,
          profile_version: r.profile_version,
          conforms: r.conforms ? 1 : 0,
          missing_required: r.missing_required.join(','),
          report: JSON.stringify(r),
          created_at: at,
        })),
      )
      .execute();
  },

  /** A revision's report for the profile (its newest profile version), or undefined when none was kept. */
  async report(db: Executor, sbomId: string, profile: string): Promise<ConformanceReport | undefined> {
    const row = await db
      .selectFrom('sbom_conformance')
      .select('report')
      .where('sbom_id', '=', sbomId)
      .where('profile', '=', profile)
      .orderBy('created_at', 'desc')
      .orderBy('profile_version', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? (JSON.parse(row.report) as ConformanceReport) : undefined;
  },

  /** Those of the revisions that belong to the organisation. */
  async revisionsOf(db: Executor, orgId: string, sbomIds: readonly string[]): Promise<string[]> {
    if (sbomIds.length === 0) return [];
    const rows = await db.selectFrom('sbom_revisions').select('id').where('org_id', '=', orgId).where('id', 'in', sbomIds).execute();
    return rows.map((r) => r.id);
  },

  /** Every report kept with the revisions (each profile and profile version), by revision id. */
  async reportsOf(db: Executor, sbomIds: readonly string[]): Promise<Map<string, ConformanceReport[]>> {
    const found = new Map<string, ConformanceReport[]>();
    if (sbomIds.length === 0) return found;
    const rows = await db
      .selectFrom('sbom_conformance')
      .select(['sbom_id', 'report'])
      .where('sbom_id', 'in', sbomIds)
      .orderBy('sbom_id')
      .orderBy('profile')
      .orderBy('profile_version')
      .execute();
    for (const row of rows) {
      const list = found.get(row.sbom_id) ?? [];
      list.push(JSON.parse(row.report) as ConformanceReport);
      found.set(row.sbom_id, list);
    }
    return found;
  },

  /** The summaries of the revisions' reports for the profile (the newest profile version of each), by revision id. */
  async summaries(db: Executor, sbomIds: readonly string[], profile: string): Promise<Map<string, ConformanceSummary>> {
    const found = new Map<string, ConformanceSummary>();
    if (sbomIds.length === 0) return found;
    const rows = await db
      .selectFrom('sbom_conformance')
      .select(['sbom_id', 'profile', 'profile_version', 'conforms', 'missing_required', 'report', 'created_at'])
      .where('sbom_id', 'in', sbomIds)
      .where('profile', '=', profile)
      .orderBy('created_at', 'asc')
      .orderBy('profile_version', 'asc')
      .execute();
    for (const row of rows) found.set(row.sbom_id, summaryOf(row));
    return found;
  },
};
