import type { Database } from '../../db/index.js';
import type { ProductRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import { type Clock, iso, systemClock } from '../../shared/time.js';
import type { OsvAffectedEntry } from '../feeds/osv-record.js';
import type { OsvAffected } from '../match/osv-range.js';
import { fixedVersions } from '../match/read-purl.js';
import { type FindingListRow, type FindingsQuery, findingsListRepo } from '../store/findings-list.repo.js';
import { findingsRepo } from '../store/findings.repo.js';
import { affectedOf, groupRow, recordsOf } from '../store/vulnerabilities.repo.js';
import {
  ANALYSIS_STATES,
  type AnalysisState,
  type CoverageView,
  type FindingView,
  type FindingsFilter,
  SEVERITY_BANDS,
  SEVERITY_SCORES,
  severityOf,
  type VulnerabilityView,
} from '../vulns.schemas.js';
import { coverageOf } from './coverage.js';
import { exploitedContextOf } from './exploited-context.js';
import { vulnerabilityKey } from './vulnerability-key.js';

// Findings as the doors read them: the organisation's list (one query path, one order, for
// `finding list`, the Vulnerabilities page, `vuln show` and VEX), a vulnerability, a product's
// findings per release, its coverage, and the fix proposed for a case from an exploited finding.

export interface FindingsDeps {
  orgs: { requireOrg(slug: string): Promise<{ id: string }> };
  products: { requireProduct(orgId: string, sku: string): Promise<ProductRow> };
}

/** A rule of the list's filter broken, on the field it concerns. */
function invalidFilter(field: 'state' | 'severity', message: string): AppError {
  return new AppError('validation_failed', message, [{ path: field, message }]);
}

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function createFindingsService(database: Database, { orgs, products }: FindingsDeps, options: { clock?: Clock } = {}) {
  const clock = options.clock ?? systemClock;
  const { db } = database;

  /** Rows of findings as shown: ids, component, fixed versions (from the group's records), scores, analysis. */
  async function viewsOf(rows: readonly FindingListRow[]): Promise<FindingView[]> {
    const affected = await affectedOf(db, [...new Set(rows.map((r) => r.vuln_key))]);
    const entries = new Map([...affected].map(([key, texts]) => [key, texts.map((t) => JSON.parse(t) as OsvAffected[])]));
    return rows.map(
      (r): FindingView => ({
        vulnerability: r.vuln_key,
        aliases: (parse<string[]>(r.aliases) ?? []).filter((a) => a !== r.vuln_key),
        cve: r.cve,
        euvd: r.euvd,
        summary: r.summary,
        product_sku: r.sku,
        releases: JSON.parse(r.releases) as string[],
        component: { name: r.name, version: r.version, purl: r.purl },
        fixed_versions: fixedVersions(entries.get(r.vuln_key) ?? [], r.purl),
        cvss: r.cvss_score !== null ? { score: r.cvss_score, vector: r.cvss_vector! } : null,
        epss: r.epss_score !== null ? { score: r.epss_score, percentile: r.epss_percentile! } : null,
        exploited: { cisa_kev: parse(r.cisa_kev), eu_kev: parse(r.eu_kev), euvd: parse(r.euvd_exploited) },
        state: (r.state as AnalysisState | null) ?? 'in_triage',
        justification: r.justification ?? null,
        responses: parse<string[]>(r.responses ?? null) ?? [],
        detail: r.detail ?? null,
        analysed_by: r.updated_by ?? null,
        first_seen_at: r.first_seen_at,
        sources: JSON.parse(r.sources) as string[],
        match: parse<FindingView['match']>(r.match),
      }),
    );
  }

  const service = {
    /**
     * The organisation's live findings the filter keeps, exploited first, then CVSS, then EPSS,
     * ties by vulnerability, product and component (store/findings-list.repo.ts): one page of at
     * most 500 from an offset, or all of them; `count` is how many the filter keeps.
     */
    async listFindings(
      orgSlug: string,
      filter: FindingsFilter = {},
      page?: { offset: number; limit: number },
    ): Promise<{ findings: FindingView[]; count: number }> {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      if (filter.state !== undefined && filter.state !== 'open' && !(ANALYSIS_STATES as readonly string[]).includes(filter.state)) {
        throw invalidFilter('state', `state must be open or one of ${ANALYSIS_STATES.join(', ')}`);
      }
      if (filter.severity !== undefined && !(SEVERITY_BANDS as readonly string[]).includes(filter.severity)) {
        throw invalidFilter('severity', `severity must be one of ${SEVERITY_BANDS.join(', ')}`);
      }
      const query: FindingsQuery = {
        orgId,
        productId: filter.sku !== undefined ? (await products.requireProduct(orgId, filter.sku)).id : undefined,
        vulnKey: filter.vuln !== undefined ? await vulnerabilityKey(db, filter.vuln) : undefined,
        release: filter.release,
        exploited: filter.exploited,
        cvss: filter.severity === undefined ? undefined : filter.severity === 'unscored' ? null : SEVERITY_SCORES[filter.severity],
        states: filter.state === undefined ? undefined : filter.state === 'open' ? ['in_triage', 'exploitable'] : [filter.state],
        onMarketAt: filter.onMarket ? iso(clock()) : undefined,
        conditional: filter.conditional,
      };
      if (page === undefined) {
        const findings = await viewsOf(await findingsListRepo.list(db, query));
        return { findings, count: findings.length };
      }
      const limit = Math.max(1, Math.min(500, Math.floor(page.limit)));
      const offset = Math.max(0, Math.floor(page.offset));
      const [rows, count] = await Promise.all([findingsListRepo.list(db, query, { offset, limit }), findingsListRepo.count(db, query)]);
      return { findings: await viewsOf(rows), count };
    },

    /** A vulnerability by any id or alias, with the organisation's findings when `orgSlug` is given. */
    async show(id: string, orgSlug?: string): Promise<VulnerabilityView> {
      const key = await vulnerabilityKey(db, id);
      const [records, group] = await Promise.all([recordsOf(db, key), groupRow(db, key)]);
      const view: VulnerabilityView = {
        vulnerability: key,
        aliases: group
          ? (JSON.parse(group.aliases) as string[])
          : [...new Set(records.flatMap((r) => [r.id, ...(JSON.parse(r.aliases) as string[])]))],
        cve: group?.cve ?? null,
        euvd: group?.euvd ?? null,
        summary: group?.summary ?? records.find((r) => r.summary)?.summary ?? null,
        cvss: group?.cvss_score != null ? { score: group.cvss_score, vector: group.cvss_vector! } : null,
        epss: group?.epss_score != null ? { score: group.epss_score, percentile: group.epss_percentile! } : null,
        exploited: {
          cisa_kev: parse(group?.cisa_kev ?? null),
          eu_kev: parse(group?.eu_kev ?? null),
          euvd: parse(group?.euvd_exploited ?? null),
        },
        records: records.map((r) => ({
          id: r.id,
          published: r.published,
          modified: r.modified,
          withdrawn: r.withdrawn,
          affected: JSON.parse(r.affected) as OsvAffectedEntry[],
        })),
      };
      if (orgSlug !== undefined) view.findings = (await service.listFindings(orgSlug, { vuln: key })).findings;
      return view;
    },

    /**
     * A product's findings per release (the latest revision of each, newest first): how many,
     * how many exploited, how many still to act on (in triage or exploitable); and how many
     * conditional ones it has, apart.
     */
    async productFindings(orgSlug: string, sku: string) {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      const product = await products.requireProduct(orgId, sku);
      const [revisions, rows, conditional] = await Promise.all([
        findingsListRepo.latestRevisions(db, product.id),
        findingsListRepo.ofProduct(db, orgId, product.id),
        findingsListRepo.count(db, { orgId, productId: product.id, conditional: true }),
      ]);
      const releases = revisions.map((r) => ({ ...r, findings: 0, exploited: 0, open: 0, critical: 0, high: 0 }));
      const byRelease = new Map(releases.map((r) => [r.release, r]));
      for (const row of rows) {
        const open = row.state === null || row.state === 'in_triage' || row.state === 'exploitable';
        const band = severityOf(row.cvss_score);
        for (const version of JSON.parse(row.releases) as string[]) {
          const release = byRelease.get(version);
          if (!release) continue;
          release.findings++;
          release.exploited += row.exploited;
          if (open) release.open++;
          if (band === 'critical') release.critical++;
          if (band === 'high') release.high++;
        }
      }
      // Conditional findings (firmware.md) are counted apart, in none of the release counts.
      return { sku: product.sku, findings: rows.length, conditional, releases };
    },

    /**
     * For a case opened from a signal the platform raised for an exploited finding: the release
     * whose SBOM no longer holds the affected component, proposed as the corrective measure (a
     * person records it, or not). Null for any other case, or while every release still holds it.
     */
    async fixProposal(orgSlug: string, incidentNumber: number) {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      const context = await exploitedContextOf(db, orgId, incidentNumber);
      const fix = context?.fixedIn[0];
      if (!context || !fix) return null;
      return { vulnerability: context.vulnerability, cve: context.cve, components: context.components, release: fix.release, at: fix.at };
    },

    /**
     * Each product's latest revisions: components, matchable ones (by purl, by CPE), and why the
     * others are not (coverage.ts).
     */
    async coverage(orgSlug: string, sku?: string): Promise<CoverageView[]> {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      const list = sku !== undefined ? [await products.requireProduct(orgId, sku)] : await findingsRepo.productsOf(db, orgId);
      return coverageOf(database, list);
    },
  };
  return service;
}

export type FindingsService = ReturnType<typeof createFindingsService>;
