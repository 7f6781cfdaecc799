import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import type { ProductRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { purlColumn } from '../sbom/store/components.repo.js';
import { decodeIds } from '../sbom/store/id-list.js';
import { assertStorableText } from '../shared/storable-text.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import type { FetchPolicy } from './feeds/fetch-feed.js';
import { VEX_FORMATS, type VexFormat, type VexStatement, vexDocument } from './vex/export.js';
import { VexDocumentError, vexStatements } from './vex/import.js';
import type { OsvAffectedEntry } from './feeds/osv-record.js';
import { createFeedsService } from './feeds.service.js';
import { bySeverity, createFindingsEngine } from './findings.service.js';
import { packageOfOsv } from './match/purl.js';
import { orderOf } from './match/version-order.js';
import { createMatcher, readPurl } from './matcher.js';
import { analysisRepo } from './store/analysis.repo.js';
import { findingsRepo } from './store/findings.repo.js';
import { groupsNaming } from './store/vulnerabilities.repo.js';
import { type FindingListRow, type FindingsPageQuery, findingsPageRepo } from './store/findings-page.repo.js';
import { exploitedContextOf } from './case-context.js';
import {
  ANALYSIS_STATES,
  type AnalysisState,
  type FindingView,
  type FindingsFilter,
  JUSTIFICATIONS,
  RESPONSES,
  SEVERITY_BANDS,
  SEVERITY_SCORES,
  severityOf,
  type CoverageView,
  type VulnerabilityView,
} from './vulns.schemas.js';

// Vulnerability intelligence for the doors (cra-admin, the console): feeds, findings, analyses,
// coverage. Matching after an SBOM ingest runs here in the background, one product at a time,
// never on the request's path.

export interface AnalyseInput {
  org: string;
  sku?: string;
  allProducts?: boolean;
  vuln: string;
  state: string;
  justification?: string;
  responses?: string[];
  detail?: string;
  /** Also for findings of this vulnerability (and component) that appear later. */
  future?: boolean;
  until?: Date;
  actor: string;
}

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function createVulnService(
  database: Database,
  orgs: {
    requireOrg(slug: string): Promise<{ id: string; slug: string; name: string; legal_name: string | null; contact_email: string | null }>;
  },
  products: { requireProduct(orgId: string, sku: string): Promise<ProductRow> },
  options: {
    clock?: Clock;
    fetchPolicy?: Partial<FetchPolicy>;
    log?: { warn(obj: object, msg: string): void };
    /** Full garbage collections feed imports may pause for (feeds.service.ts). */
    collectGarbage?: { collect(): void; everyRecords?: number };
  } = {},
) {
  const clock = options.clock ?? systemClock;
  const { db } = database;
  const matcher = createMatcher(database);
  const engine = createFindingsEngine(database, { clock });
  const feeds = createFeedsService(database, {
    matcher,
    findings: engine,
    clock,
    fetchPolicy: options.fetchPolicy,
    collectGarbage: options.collectGarbage,
  });

  // Work after ingest runs one job at a time, in order, beside the requests.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (job: () => Promise<unknown>) => {
    queue = queue.then(job).then(
      () => undefined,
      (error: unknown) => options.log?.warn({ err: error }, 'matching after an SBOM ingest failed'),
    );
  };

  /** The alias group named by any of its ids or aliases. */
  async function groupOf(id: string): Promise<string> {
    const [key] = await groupsNaming(db, [id.trim()]);
    if (!key) throw new AppError('not_found', `no vulnerability with id or alias "${id}"`);
    return key;
  }

  /**
   * The versions the group's records say fix the component: the `fixed` events of its package
   * above its version, lowest first (all of them when the order cannot compare).
   */
  function fixedVersions(records: Array<{ affected: string }>, purl: string | null): string[] {
    const reading = readPurl(purl);
    if (!('key' in reading)) return [];
    const fixed = new Set<string>();
    for (const r of records) {
      for (const entry of JSON.parse(r.affected) as OsvAffectedEntry[]) {
        if (entry.package && packageOfOsv(entry.package)?.key === reading.key) {
          for (const range of entry.ranges) for (const e of range.events) if (e.fixed) fixed.add(e.fixed);
        }
      }
    }
    const order = orderOf(reading.ecosystem);
    if (!order?.valid(reading.version)) return [...fixed];
    const above = [...fixed].filter((v) => order.valid(v) && order.compare(v, reading.version) > 0);
    return above.sort((a, b) => order.compare(a, b));
  }

  /** Rows of findings as shown: ids, component, fixed versions (from the group's records), scores, analysis. */
  async function viewsOf(rows: readonly FindingListRow[]): Promise<FindingView[]> {
    const keys = [...new Set(rows.map((r) => r.vuln_key))];
    const records = new Map<string, Array<{ affected: string }>>();
    for (let i = 0; i < keys.length; i += 500) {
      const chunk = await db
        .selectFrom('vuln_records')
        .select(['vuln_key', 'affected'])
        .where('vuln_key', 'in', keys.slice(i, i + 500))
        .execute();
      for (const r of chunk) records.set(r.vuln_key, [...(records.get(r.vuln_key) ?? []), r]);
    }
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
        fixed_versions: fixedVersions(records.get(r.vuln_key) ?? [], r.purl),
        cvss: r.cvss_score !== null ? { score: r.cvss_score, vector: r.cvss_vector! } : null,
        epss: r.epss_score !== null ? { score: r.epss_score, percentile: r.epss_percentile! } : null,
        exploited: { cisa_kev: parse(r.cisa_kev), eu_kev: parse(r.eu_kev) },
        state: (r.state as AnalysisState | null) ?? 'in_triage',
        justification: r.justification ?? null,
        responses: parse<string[]>(r.responses ?? null) ?? [],
        detail: r.detail ?? null,
        first_seen_at: r.first_seen_at,
      }),
    );
  }

  const service = {
    importFeeds: feeds.importFeeds,
    feeds: feeds.feeds,

    /** Starts matching a new revision's components and refreshing the product's findings, in the background. */
    afterIngest(productId: string, componentIds: ArrayLike<number>): void {
      enqueue(async () => {
        // Without records there is nothing to match: the first OSV import reads them all.
        if (!(await matcher.anyRecords())) return;
        await matcher.readComponents(componentIds);
        await engine.refreshProduct(productId);
      });
    },

    /** Resolves once the background work queued so far is done (tests, shutdown). */
    idle(): Promise<void> {
      return queue;
    },

    /** A vulnerability by any id or alias, with the organisation's findings when `orgSlug` is given. */
    async show(id: string, orgSlug?: string): Promise<VulnerabilityView> {
      const key = await groupOf(id);
      const records = await db.selectFrom('vuln_records').selectAll().where('vuln_key', '=', key).orderBy('id').execute();
      const group = await db.selectFrom('vulnerabilities').selectAll().where('vuln_key', '=', key).executeTakeFirst();
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
        exploited: { cisa_kev: parse(group?.cisa_kev ?? null), eu_kev: parse(group?.eu_kev ?? null) },
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

    /** The organisation's live findings, exploited first, then by CVSS and EPSS. */
    async listFindings(
      orgSlug: string,
      filter: { sku?: string; vuln?: string; exploited?: boolean; state?: string } = {},
    ): Promise<{ findings: FindingView[]; count: number }> {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      if (filter.state !== undefined && !(ANALYSIS_STATES as readonly string[]).includes(filter.state)) {
        throw new AppError('validation_failed', `--state must be one of ${ANALYSIS_STATES.join(', ')}`);
      }
      const query: FindingsPageQuery = {
        orgId,
        productId: filter.sku !== undefined ? (await products.requireProduct(orgId, filter.sku)).id : undefined,
        vulnKey: filter.vuln !== undefined ? await groupOf(filter.vuln) : undefined,
        exploited: filter.exploited ? true : undefined,
        states: filter.state !== undefined ? [filter.state] : undefined,
      };
      // The page's order, its ties broken by SKU and component name rather than by ids.
      const rows = (await findingsPageRepo.page(db, query, 0)).sort(
        (a, b) => bySeverity(a, b) || a.vuln_key.localeCompare(b.vuln_key) || a.sku.localeCompare(b.sku) || a.name.localeCompare(b.name),
      );
      const findings = await viewsOf(rows);
      return { findings, count: findings.length };
    },

    /**
     * One page of the organisation's live findings (the Vulnerabilities page), filtered and
     * ordered in the query: exploited first, then CVSS, then EPSS, then a stable tiebreak; with
     * how many findings the filters keep.
     */
    async findingsPage(
      orgSlug: string,
      filter: FindingsFilter,
      page: { offset: number; limit: number },
    ): Promise<{ findings: FindingView[]; count: number }> {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      if (filter.state !== undefined && filter.state !== 'open' && !(ANALYSIS_STATES as readonly string[]).includes(filter.state)) {
        throw new AppError('validation_failed', `state must be open or one of ${ANALYSIS_STATES.join(', ')}`);
      }
      if (filter.severity !== undefined && !(SEVERITY_BANDS as readonly string[]).includes(filter.severity)) {
        throw new AppError('validation_failed', `severity must be one of ${SEVERITY_BANDS.join(', ')}`);
      }
      const query: FindingsPageQuery = {
        orgId,
        productId: filter.sku !== undefined ? (await products.requireProduct(orgId, filter.sku)).id : undefined,
        vulnKey: filter.vuln !== undefined ? await groupOf(filter.vuln) : undefined,
        release: filter.release,
        exploited: filter.exploited,
        cvss: filter.severity === undefined ? undefined : filter.severity === 'unscored' ? null : SEVERITY_SCORES[filter.severity],
        states: filter.state === undefined ? undefined : filter.state === 'open' ? ['in_triage', 'exploitable'] : [filter.state],
        onMarketAt: filter.onMarket ? iso(clock()) : undefined,
      };
      const limit = Math.max(1, Math.min(500, Math.floor(page.limit)));
      const offset = Math.max(0, Math.floor(page.offset));
      const [rows, count] = await Promise.all([findingsPageRepo.page(db, query, offset, limit), findingsPageRepo.count(db, query)]);
      return { findings: await viewsOf(rows), count };
    },

    /**
     * A product's findings per release (the latest revision of each, newest first): how many,
     * how many exploited, how many still to act on (in triage or exploitable).
     */
    async productFindings(orgSlug: string, sku: string) {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      const product = await products.requireProduct(orgId, sku);
      const [revisions, rows] = await Promise.all([
        findingsPageRepo.latestRevisions(db, product.id),
        findingsPageRepo.ofProduct(db, orgId, product.id),
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
      return { sku: product.sku, findings: rows.length, releases };
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

    /** Sets the analysis of a vulnerability on one product or all that have it; each change a registry entry. */
    async analyse(input: AnalyseInput): Promise<{ vulnerability: string; products: string[]; rule: string | null }> {
      const { id: orgId } = await orgs.requireOrg(input.org);
      if (!(ANALYSIS_STATES as readonly string[]).includes(input.state)) {
        throw new AppError('validation_failed', `state must be one of ${ANALYSIS_STATES.join(', ')}`);
      }
      if (input.justification !== undefined && !(JUSTIFICATIONS as readonly string[]).includes(input.justification)) {
        throw new AppError('validation_failed', `justification must be one of ${JUSTIFICATIONS.join(', ')}`);
      }
      if (input.justification !== undefined && input.state !== 'not_affected') {
        throw new AppError('validation_failed', 'a justification says why a product is not_affected: give it with --state not_affected');
      }
      const responses = [...new Set(input.responses ?? [])];
      const bad = responses.filter((r) => !(RESPONSES as readonly string[]).includes(r));
      if (bad.length) throw new AppError('validation_failed', `responses must be among ${RESPONSES.join(', ')} (not ${bad.join(', ')})`);
      if (input.detail !== undefined) assertStorableText({ detail: input.detail });
      if (input.detail !== undefined && input.detail.length > 10_000)
        throw new AppError('validation_failed', 'detail may be at most 10,000 characters');
      if ((input.sku === undefined) === !input.allProducts) throw new AppError('validation_failed', 'give either --sku or --all-products');
      if (input.until !== undefined && !input.future)
        throw new AppError('validation_failed', '--until bounds a rule for later findings: give it with --future');
      const key = await groupOf(input.vuln);
      const live = await db
        .selectFrom('findings as f')
        .innerJoin('products as p', 'p.id', 'f.product_id')
        .innerJoin('components as c', 'c.id', 'f.component_id')
        .select(['p.id', 'p.sku', purlColumn('c').as('purl')])
        .where('f.org_id', '=', orgId)
        .where('f.vuln_key', '=', key)
        .where('f.gone_at', 'is', null)
        .execute();
      let targets = live;
      if (input.sku !== undefined) {
        const product = await products.requireProduct(orgId, input.sku);
        targets = live.filter((f) => f.id === product.id);
        if (targets.length === 0 && !input.future) throw new AppError('not_found', `${input.sku} has no finding of ${key}`);
      }
      const at = iso(clock());
      const productIds = [...new Map(targets.map((t) => [t.id, t.sku])).entries()];
      let rule: string | null = null;
      await database.transaction(async (trx) => {
        const analysis = {
          state: input.state,
          justification: input.justification ?? null,
          responses: JSON.stringify(responses),
          detail: input.detail ?? null,
        };
        for (const [productId, sku] of productIds) {
          await analysisRepo.save(trx, {
            org_id: orgId,
            product_id: productId,
            vuln_key: key,
            ...analysis,
            updated_at: at,
            updated_by: input.actor,
          });
          await appendRegistryEntry(
            trx,
            orgId,
            {
              actor: input.actor,
              action: 'finding.analysed',
              subject: `${sku} ${key}`,
              details: { vulnerability: key, product_sku: sku, state: input.state, justification: analysis.justification, responses },
            },
            at,
          );
        }
        if (input.future) {
          rule = randomUUID();
          // For one product: the components it has the finding in; for all: any component.
          const purls = input.sku !== undefined ? [...new Set(targets.map((t) => t.purl))] : [null];
          const purl = purls.length === 1 ? purls[0]! : null;
          await analysisRepo.insertRule(trx, {
            id: rule,
            org_id: orgId,
            vuln_key: key,
            purl,
            ...analysis,
            until: input.until ? iso(input.until) : null,
            created_at: at,
            created_by: input.actor,
          });
          await appendRegistryEntry(
            trx,
            orgId,
            {
              actor: input.actor,
              action: 'finding.rule_added',
              subject: key,
              details: { vulnerability: key, rule, purl, state: input.state, until: input.until ? iso(input.until) : null },
            },
            at,
          );
        }
      });
      return { vulnerability: key, products: productIds.map(([, sku]) => sku), rule };
    },

    /**
     * The VEX document of one release of a product (default: the release that received the
     * latest SBOM): every vulnerability found in it, with its analysis.
     */
    async vexExport(orgSlug: string, sku: string, format: string, releaseVersion?: string): Promise<Record<string, unknown>> {
      if (!(VEX_FORMATS as readonly string[]).includes(format))
        throw new AppError('validation_failed', `--format must be one of ${VEX_FORMATS.join(', ')}`);
      const org = await orgs.requireOrg(orgSlug);
      const product = await products.requireProduct(org.id, sku);
      const latest = await findingsRepo.latestRevisions(db, product.id);
      const release = releaseVersion ?? [...latest].sort((a, b) => b.ingested_at.localeCompare(a.ingested_at))[0]?.release_version ?? null;
      if (release === null || !latest.some((r) => r.release_version === release)) {
        throw new AppError('not_found', release === null ? `${sku} has no SBOM` : `${sku} has no release "${release}"`);
      }
      const findings = (await service.listFindings(orgSlug, { sku })).findings.filter((f) => f.releases.includes(release));
      const byVuln = new Map<string, VexStatement>();
      for (const f of findings) {
        const statement = byVuln.get(f.vulnerability) ?? {
          vulnerability: f.vulnerability,
          aliases: f.aliases,
          cve: f.cve,
          summary: f.summary,
          cvss: f.cvss,
          state: f.state,
          justification: f.justification,
          responses: f.responses,
          detail: f.detail,
          components: [],
        };
        byVuln.set(f.vulnerability, { ...statement, components: [...statement.components, f.component] });
      }
      return vexDocument(format as VexFormat, {
        orgSlug: org.slug,
        publisherName: org.legal_name ?? org.name,
        contactEmail: org.contact_email,
        sku: product.sku,
        productName: product.name,
        release,
        now: iso(clock()),
        documentId: randomUUID(),
        statements: [...byVuln.values()],
      });
    },

    /**
     * Sets the analyses a VEX document states (CycloneDX, CSAF or OpenVEX), each a registry
     * entry; statements that match no finding are listed with why, never dropped.
     */
    async vexImport(orgSlug: string, doc: unknown, actor: string) {
      const org = await orgs.requireOrg(orgSlug);
      let read: ReturnType<typeof vexStatements>;
      try {
        read = vexStatements(doc);
      } catch (error) {
        if (error instanceof VexDocumentError) throw new AppError('validation_failed', error.message);
        throw error;
      }
      const applied: Array<{ vulnerability: string; product: string; state: string }> = [];
      const unmatched: Array<{ vulnerability: string; product: string; reason: string }> = [];
      const prefix = `pkg:generic/${encodeURIComponent(org.slug)}/`;
      for (const statement of read.statements) {
        let key: string | null = null;
        for (const id of statement.ids) {
          key = await groupOf(id).catch(() => null);
          if (key) break;
        }
        const refs = statement.products.length ? statement.products : ['(none)'];
        for (const ref of refs) {
          const sku = ref.startsWith(prefix) ? decodeURIComponent(ref.slice(prefix.length).replace(/@.*$/, '')) : ref;
          if (!key) {
            unmatched.push({ vulnerability: statement.ids[0]!, product: ref, reason: 'no vulnerability with this id or alias' });
            continue;
          }
          const product = await products.requireProduct(org.id, sku).catch(() => null);
          if (!product) {
            unmatched.push({
              vulnerability: statement.ids[0]!,
              product: ref,
              reason: 'no product of the organisation with this identifier or SKU',
            });
            continue;
          }
          try {
            await service.analyse({
              org: org.slug,
              sku: product.sku,
              vuln: key,
              state: statement.state,
              justification: statement.state === 'not_affected' ? (statement.justification ?? undefined) : undefined,
              responses: statement.responses.filter((r) => (RESPONSES as readonly string[]).includes(r)),
              detail: statement.detail ?? undefined,
              actor,
            });
            applied.push({ vulnerability: key, product: product.sku, state: statement.state });
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            unmatched.push({ vulnerability: statement.ids[0]!, product: ref, reason: error.message });
          }
        }
      }
      return { format: read.format, applied: applied.length, statements: applied, unmatched };
    },

    /** Each product's latest revisions: components, matchable ones, and why the others are not. */
    async coverage(orgSlug: string, sku?: string): Promise<CoverageView[]> {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      const list =
        sku !== undefined
          ? [await products.requireProduct(orgId, sku)]
          : await db.selectFrom('products').selectAll().where('org_id', '=', orgId).orderBy('sku').execute();
      const out: CoverageView[] = [];
      for (const product of list) {
        const ids = new Set<number>();
        for (const revision of await findingsRepo.latestRevisions(db, product.id))
          for (const id of decodeIds(revision.component_ids)) ids.add(id);
        const purls = await analysisRepo.purlsOf(db, [...ids]);
        const view: CoverageView = {
          sku: product.sku,
          components: ids.size,
          matchable: 0,
          not_matchable: { no_purl: 0, ecosystem_not_covered: 0, version_unparsable: 0 },
        };
        for (const purl of purls.values()) {
          const { status } = readPurl(purl);
          if (status === 'matchable') view.matchable++;
          else if (status === 'ecosystem_not_covered') view.not_matchable.ecosystem_not_covered++;
          else if (status === 'no_purl' || status === 'invalid_purl') view.not_matchable.no_purl++;
          else view.not_matchable.version_unparsable++;
        }
        out.push(view);
      }
      return out;
    },
  };
  return service;
}

export type VulnService = ReturnType<typeof createVulnService>;
