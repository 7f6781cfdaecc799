import type { Database } from '../../db/index.js';
import type { ProductRow } from '../../db/schema.js';
import { type Clock, systemClock } from '../../shared/time.js';
import { createMatcher } from '../engine/component-matcher.js';
import { createCpeMatcher } from '../engine/cpe-matcher.js';
import { createFindingsEngine } from '../engine/findings-engine.js';
import type { FetchPolicy } from '../feeds/fetch-feed.js';
import type { RecordPool } from '../feeds/prepared-records.js';
import type { StoredRevisionFacts } from '../../sbom/store/ingest.service.js';
import { createAnalysisService } from './analysis.service.js';
import { createCpeMappingsService } from './cpe-mappings.service.js';
import { BUILD_ACTOR, createBuildVerdictsService } from './build-verdicts.service.js';
import { createFeedsService } from './feeds.service.js';
import { createFindingsService } from './findings.service.js';
import { createVexService } from './vex.service.js';

// Vulnerability intelligence for the doors (cra-admin, the console): one object over the feeds,
// findings, analysis and VEX services, built on one matcher and one findings engine. Matching
// after an SBOM ingest runs here in the background, one product at a time, never on the
// request's path.

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
    /** Full garbage collections feed imports may pause for (services/feeds.service.ts). */
    collectGarbage?: { collect(): void; everyRecords?: number };
    /** The worker threads feed imports prepare records in (made and closed by the composition root). */
    records?: RecordPool;
  } = {},
) {
  const clock = options.clock ?? systemClock;
  const matcher = createMatcher(database);
  const cpe = createCpeMatcher(database);
  const engine = createFindingsEngine(database, { clock, cpe });
  const feeds = createFeedsService(database, {
    matcher,
    findings: engine,
    clock,
    fetchPolicy: options.fetchPolicy,
    collectGarbage: options.collectGarbage,
    records: options.records,
    // Components stored before any NVD record was held have their CPEs read before the products a
    // batch concerns are looked up (component_cpe_keys); a no-op query once all are read.
    nvdChanged: () => cpe.readUnread(),
  });
  const findings = createFindingsService(database, { orgs, products }, { clock });
  const analysis = createAnalysisService(database, { orgs, products }, { clock });
  const cpeMappings = createCpeMappingsService(database, { orgs, products, cpe, findings: engine }, { clock });
  const buildVerdicts = createBuildVerdictsService(database, { clock });
  const vex = createVexService(database, { orgs, products, findings, analysis, buildVerdicts }, { clock });

  // Work after ingest runs one job at a time, in order, beside the requests.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (job: () => Promise<unknown>) => {
    queue = queue.then(job).then(
      () => undefined,
      (error: unknown) => options.log?.warn({ err: error }, 'matching after an SBOM ingest failed'),
    );
  };

  return {
    importFeeds: feeds.importFeeds,
    feeds: feeds.feeds,
    listFindings: findings.listFindings,
    show: findings.show,
    productFindings: findings.productFindings,
    fixProposal: findings.fixProposal,
    coverage: findings.coverage,
    analyse: analysis.analyse,
    vexExport: vex.vexExport,
    vexImport: vex.vexImport,
    cpeCandidates: cpeMappings.candidates,
    cpeMappings: cpeMappings.mappings,
    mapCpe: cpeMappings.map,
    unmapCpe: cpeMappings.unmap,

    /**
     * Sets the analyses the revision's build wrote into it (before matching, so that the findings
     * it makes are shown with them), then starts matching its components and refreshing the
     * product's findings, in the background.
     */
    afterIngest(productId: string, componentIds: ArrayLike<number>, revision?: StoredRevisionFacts): void {
      enqueue(async () => {
        if (revision && revision.buildVerdicts.length > 0) {
          await buildVerdicts.applyBuildVerdicts(
            { orgId: revision.orgId, productId, sku: revision.sku },
            revision.buildVerdicts,
            `${BUILD_ACTOR}sbom/${revision.sbomId}`,
            { sbom_id: revision.sbomId, release: revision.release, revision: revision.revision },
          );
        }
        // Without records there is nothing to match: the first OSV (or NVD) import reads them all.
        const [osv, nvd] = await Promise.all([matcher.anyRecords(), cpe.anyRecords()]);
        if (!osv && !nvd) return;
        if (osv) await matcher.readComponents(componentIds);
        if (nvd) await cpe.readComponents(componentIds);
        await engine.refreshProduct(productId);
      });
    },

    /** Resolves once the background work queued so far is done (tests, shutdown). */
    idle(): Promise<void> {
      return queue;
    },
  };
}

export type VulnService = ReturnType<typeof createVulnService>;
