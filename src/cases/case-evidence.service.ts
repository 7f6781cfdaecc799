import type { Database } from '../db/index.js';
import type { CaseReportRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { toOrganisationDetails } from '../orgs/orgs.service.js';
import { productsRepo } from '../products/products.repo.js';
import { verifyRegistry } from '../registry/registry.service.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { registryRepo } from '../registry/registry.repo.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { caseContextRepo } from './case-context.repo.js';
import type { CaseReportService } from './case-reports.service.js';
import { caseReportsRepo } from './case-reports.repo.js';
import { casesRepo } from './cases.repo.js';
import type { CaseService } from './cases.service.js';
import { csafAdvisory } from './csaf-advisory.js';
import { CATALOGUE_VERSION, type ReportFields } from './report-catalogue.js';
import { assertStorableText } from '../shared/storable-text.js';

/** A revision's document as received, or why the bundle has none (sbom-documents.service.ts's shape). */
export type RevisionDocumentBytes =
  | { sbom_id: string; digest: string; bytes: Buffer }
  | { sbom_id: string; digest: string; missing: string };

// 14(8) advisories and the evidence bundle of a case (art14.md "Informing users", "Evidence").

export const EVIDENCE_FORMAT = 'cra-case-evidence/1';

/** The newest filed content of the stages that carry the measures for users, else their drafts. */
function latestFields(reports: readonly CaseReportRow[]): ReportFields {
  const order = ['final', 'notification', 'intermediate', 'early_warning'];
  const sorted = [...reports].sort((a, b) => order.indexOf(a.stage) - order.indexOf(b.stage) || b.seq - a.seq);
  const merged: ReportFields = {};
  // Earlier stages first, so later ones overwrite: what was said last is what users read.
  for (const r of sorted.reverse()) {
    const fields = r.content ? (JSON.parse(r.content) as { fields: ReportFields }).fields : (JSON.parse(r.fields) as ReportFields);
    Object.assign(merged, fields);
  }
  return merged;
}

export function createCaseEvidenceService(
  database: Database,
  orgs: OrgService,
  cases: CaseService,
  reports: CaseReportService,
  options: {
    clock?: Clock;
    /** The documents as received of an organisation's revisions (sbom/portfolio/sbom-documents.service.ts). */
    documents?: { documentsOf(orgId: string, sbomIds: readonly string[]): Promise<RevisionDocumentBytes[]> };
    /** The conformance reports kept with an organisation's revisions (sbom/portfolio/conformance.service.ts). */
    conformance?: { reportsOf(orgId: string, sbomIds: readonly string[]): Promise<Map<string, unknown[]>> };
  } = {},
) {
  const clock = options.clock ?? systemClock;

  return {
    /**
     * The CSAF 2.0 advisory for the case's affected releases. With `publication`, records that the
     * manufacturer published it (when and where) first; the advisory then carries that date.
     */
    async advisory(
      orgSlug: string,
      incidentNumber: number,
      publication?: { url: string; at?: Date; actor?: string },
    ): Promise<Record<string, unknown>> {
      assertStorableText({ url: publication?.url });
      const org = await orgs.requireOrg(orgSlug);
      let kase = await cases.requireCase(org.id, incidentNumber);
      if (!kase.product_sku)
        throw new AppError(
          'conflict',
          `case ${incidentNumber} names no product: attribute it first (case open --product, or signal attribute)`,
        );
      const product = (await productsRepo.findBySku(database.db, org.id, kase.product_sku))!;
      const rows = await caseReportsRepo.forCases(database.db, [kase.id]);
      const fields = latestFields(rows);
      const userMeasures = typeof fields.user_measures === 'string' ? fields.user_measures.trim() : '';
      if (!userMeasures)
        throw new AppError(
          'validation_failed',
          `the advisory needs the measures users can take: set user_measures in the notification or final report of case ${incidentNumber}`,
        );
      const now = clock();
      if (publication) {
        const url = publication.url.trim();
        if (!/^https?:\/\/\S+$/.test(url)) throw new AppError('validation_failed', `"${url}" is not an http(s) URL`);
        const at = publication.at ?? now;
        if (at.getTime() > now.getTime()) throw new AppError('validation_failed', `the publication time ${iso(at)} is in the future`);
        const change = { advisory_published_at: iso(at), advisory_url: url };
        await database.transaction(async (trx) => {
          await casesRepo.setAdvisoryPublication(trx, kase.id, change);
          await appendRegistryEntry(
            trx,
            org.id,
            {
              actor: publication.actor ?? 'cli',
              action: 'case.advisory_published',
              subject: `case ${incidentNumber}`,
              details: { incident_number: incidentNumber, published_at: change.advisory_published_at, url },
            },
            iso(now),
          );
        });
        kase = { ...kase, ...change };
      }
      const report = await reports.getReport(orgSlug, incidentNumber, 'notification').catch(() => null);
      const versions = Array.isArray(fields.affected_versions)
        ? fields.affected_versions
        : ((report?.fields.affected_versions as string[] | undefined) ?? []);
      const cves = Array.isArray(fields.cve_ids) ? fields.cve_ids : ((report?.fields.cve_ids as string[] | undefined) ?? []);
      return csafAdvisory({
        orgSlug: org.slug,
        publisherName: org.legal_name ?? org.name,
        contactEmail: org.contact_email,
        incidentNumber,
        kind: kase.kind,
        title: kase.title,
        summary: (typeof fields.summary === 'string' && fields.summary.trim()) || kase.title,
        productName: product.name,
        versions,
        cves,
        userMeasures,
        fix: kase.fix_available_at ? { availableAt: kase.fix_available_at, description: kase.fix_description } : null,
        initialReleaseDate: kase.advisory_published_at ?? iso(now),
        now: iso(now),
      });
    },

    /**
     * One JSON bundle per case for an auditor: the case and its timeline, every report as filed with
     * its hash, the SBOM revisions current at awareness, and the case's registry entries with the
     * organisation's chain head and the result of verifying the chain.
     */
    async exportCase(orgSlug: string, incidentNumber: number) {
      const org = await orgs.requireOrg(orgSlug);
      const kase = await cases.requireCase(org.id, incidentNumber);
      const now = clock();
      const view = await cases.view(kase, now);
      const rows = await caseReportsRepo.forCases(database.db, [kase.id]);
      const merged = await caseContextRepo.mergedSignals(database.db, org.id, incidentNumber);
      const subjects = [`case ${incidentNumber}`, `signal ${incidentNumber}`, ...merged.map((m) => `signal ${m.incident_number}`)];
      const entries = await caseContextRepo.registryEntries(database.db, org.id, subjects);
      const product = kase.product_sku ? await productsRepo.findBySku(database.db, org.id, kase.product_sku) : undefined;
      const revisions = product ? await caseContextRepo.revisionsCurrentAt(database.db, product.id, kase.aware_at) : [];
      const documents =
        (await options.documents?.documentsOf(
          org.id,
          revisions.map((r) => r.sbom_id),
        )) ?? [];
      const reports =
        (await options.conformance?.reportsOf(
          org.id,
          revisions.map((r) => r.sbom_id),
        )) ?? new Map<string, unknown[]>();
      const [head, verification] = [await registryRepo.head(database.db, org.id), await verifyRegistry(database, org.id)];
      return {
        format: EVIDENCE_FORMAT,
        catalogue_version: CATALOGUE_VERSION,
        generated_at: iso(now),
        organisation: { slug: org.slug, name: org.name, ...toOrganisationDetails(org) },
        case: view,
        merged_signals: merged,
        timeline: entries.map((e) => ({
          seq: e.seq,
          at: e.at,
          actor: e.actor,
          action: e.action,
          subject: e.subject,
          details: JSON.parse(e.details) as unknown,
        })),
        reports: rows
          .filter((r) => r.filed_at !== null)
          .map((r) => ({
            stage: r.stage,
            seq: r.seq,
            due_at: r.due_at,
            filed_at: r.filed_at,
            srp_reference: r.srp_reference,
            filed_by: r.filed_by,
            recorded_at: r.recorded_at,
            without_content: r.content === null,
            /** The exact canonical JSON that was filed: SHA-256 of this text is content_sha256. */
            content_json: r.content,
            content_sha256: r.content_sha256,
          })),
        product: product
          ? { sku: product.sku, name: product.name, markets: product.markets ? (JSON.parse(product.markets) as string[]) : null }
          : null,
        sbom_revisions_at_awareness: revisions,
        /**
         * The documents as received of those revisions: the manifest names each by revision with
         * its SHA-256 and size (or why it has none); `sbom_documents` holds each distinct one once,
         * base64 under its SHA-256. SHA-256 of the decoded bytes is the digest.
         */
        manifest: {
          sbom_documents: documents.map((d) => {
            const r = revisions.find((x) => x.sbom_id === d.sbom_id)!;
            const named = { sbom_id: d.sbom_id, release_version: r.release_version, revision: r.revision, sha256: d.digest };
            return 'bytes' in d ? { ...named, bytes: d.bytes.byteLength, included: true } : { ...named, included: false, why: d.missing };
          }),
        },
        sbom_documents: Object.fromEntries(documents.flatMap((d) => ('bytes' in d ? [[d.digest, d.bytes.toString('base64')]] : []))),
        /** The conformance reports kept with those revisions (sbom-conformance.md), by revision id; none for a revision stored before reports were kept. */
        sbom_conformance: Object.fromEntries(revisions.map((r) => [r.sbom_id, reports.get(r.sbom_id) ?? []])),
        registry: {
          entries,
          chain_head: head,
          verification,
        },
      };
    },
  };
}

export type CaseEvidenceService = ReturnType<typeof createCaseEvidenceService>;
