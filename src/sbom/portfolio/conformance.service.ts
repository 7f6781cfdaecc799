import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { OrgService } from '../../orgs/orgs.service.js';
import type { ProductService } from '../../products/products.service.js';
import { appendRegistryEntry } from '../../registry/append-entry.js';
import { iso, systemClock, type Clock } from '../../shared/time.js';
import {
  CONFORMANCE_PROFILES,
  isConformanceProfile,
  type ConformanceProfileId,
  type ConformanceReport,
} from '../conformance/conformance.js';
import { parseSbomPolicy, policyProfile, sbomPolicyText, storedSbomPolicy, type SbomPolicy } from '../conformance/policy.js';
import { conformanceRepo, type ConformanceSummary, type LatestRevision } from '../store/conformance.repo.js';
import { sbomHistoryRepo, type RevisionListing } from './sbom-history.repo.js';

export type { ConformanceSummary };

/** Which revision: the product's newest (newest release, newest revision), or of a release, or one revision of it. */
export interface RevisionChoice {
  release?: string | undefined;
  revision?: number | undefined;
}

/** A product's newest revision and its report's summary (none for a revision stored before reports were kept). */
export interface LatestConformance extends LatestRevision {
  summary: ConformanceSummary | undefined;
}

/** A revision's report under one profile. */
export interface RevisionConformance {
  sku: string;
  revision: RevisionListing;
  report: ConformanceReport;
}

/** The organisation's SBOM policy and the conformance reports kept with each revision (sbom-conformance.md). */
export function createSbomConformanceService(database: Database, orgs: OrgService, products: ProductService, clock: Clock = systemClock) {
  async function policyOf(orgId: string): Promise<SbomPolicy> {
    return storedSbomPolicy(await conformanceRepo.policyOf(database.db, orgId));
  }

  async function chooseRevision(productId: string, sku: string, choice: RevisionChoice): Promise<RevisionListing> {
    const all = await sbomHistoryRepo.revisions(database.db, productId);
    if (all.length === 0) throw new AppError('not_found', `product "${sku}" has no SBOM yet`);
    // By default the release that received the latest SBOM.
    const newest = all.reduce((a, b) => (b.ingested_at > a.ingested_at ? b : a));
    const release = choice.release ?? newest.release_version;
    const ofRelease = all.filter((r) => r.release_version === release);
    if (ofRelease.length === 0) throw new AppError('not_found', `product "${sku}" has no release "${release}"`);
    if (choice.revision === undefined) return ofRelease[0]!;
    const found = ofRelease.find((r) => r.revision === choice.revision);
    if (!found) throw new AppError('not_found', `release "${release}" of product "${sku}" has no revision ${choice.revision}`);
    return found;
  }

  return {
    /** The organisation's policy, as `report` or `require:PROFILE`. */
    async policy(orgSlug: string): Promise<{ policy: string; profile: ConformanceProfileId }> {
      const org = await orgs.requireOrg(orgSlug);
      const policy = await policyOf(org.id);
      return { policy: sbomPolicyText(policy), profile: policyProfile(policy) };
    },

    /** Sets the policy (`report` or `require:PROFILE`), a registry entry when it changes. */
    async setPolicy(orgSlug: string, text: string, actor: string): Promise<{ policy: string; profile: ConformanceProfileId }> {
      const policy = parseSbomPolicy(text);
      const org = await orgs.requireOrg(orgSlug);
      const value = sbomPolicyText(policy);
      await database.transaction(async (trx) => {
        const before = await conformanceRepo.policyOf(trx, org.id);
        if (before === value) return;
        await conformanceRepo.setPolicy(trx, org.id, value);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor, action: 'org.sbom_policy_set', subject: org.slug, details: { from: before, to: value } },
          iso(clock()),
        );
      });
      return { policy: value, profile: policyProfile(policy) };
    },

    /**
     * A revision's report under `profile` (default: the organisation's): the product's newest
     * revision unless a release or revision is chosen. A revision stored before reports were kept
     * has none, and says so.
     */
    async report(orgSlug: string, sku: string, choice: RevisionChoice & { profile?: string | undefined }): Promise<RevisionConformance> {
      const org = await orgs.requireOrg(orgSlug);
      if (choice.profile !== undefined && !isConformanceProfile(choice.profile)) {
        throw new AppError('validation_failed', `no conformance profile "${choice.profile}"`, [
          { path: '/profile', message: `must be one of ${CONFORMANCE_PROFILES.join(', ')}` },
        ]);
      }
      const product = await products.requireProduct(org.id, sku);
      const revision = await chooseRevision(product.id, product.sku, choice);
      const profile = choice.profile ?? policyProfile(await policyOf(org.id));
      const report = await conformanceRepo.report(database.db, revision.id, profile);
      if (!report) {
        throw new AppError(
          'not_found',
          `revision ${revision.revision} of release ${revision.release_version} of "${product.sku}" has no ${profile} report: it was stored before conformance reports were kept (cra-admin sbom check checks its document)`,
        );
      }
      return { sku: product.sku, revision, report };
    },

    /**
     * Each product's newest revision with its report's summary under the organisation's profile
     * (undefined when it has none), by product id: the Products page's badges and filter, Today.
     */
    async latestByProduct(orgSlug: string): Promise<{ profile: ConformanceProfileId; byProduct: Map<string, LatestConformance> }> {
      const org = await orgs.requireOrg(orgSlug);
      const profile = policyProfile(await policyOf(org.id));
      const latest = await conformanceRepo.latestRevisions(database.db, org.id);
      const summaries = await conformanceRepo.summaries(
        database.db,
        latest.map((l) => l.sbom_id),
        profile,
      );
      return { profile, byProduct: new Map(latest.map((l) => [l.product_id, { ...l, summary: summaries.get(l.sbom_id) }])) };
    },

    /** Every report kept with an organisation's revisions, by revision id (the case evidence bundle). */
    async reportsOf(orgId: string, sbomIds: readonly string[]): Promise<Map<string, ConformanceReport[]>> {
      const own = await conformanceRepo.revisionsOf(database.db, orgId, sbomIds);
      return conformanceRepo.reportsOf(database.db, own);
    },

    /** The summaries of revisions' reports under the organisation's profile (console badges), by revision id. */
    async summaries(
      orgId: string,
      sbomIds: readonly string[],
    ): Promise<{ profile: ConformanceProfileId; bySbom: Map<string, ConformanceSummary> }> {
      const profile = policyProfile(await policyOf(orgId));
      return { profile, bySbom: await conformanceRepo.summaries(database.db, sbomIds, profile) };
    },
  };
}

export type SbomConformanceService = ReturnType<typeof createSbomConformanceService>;
