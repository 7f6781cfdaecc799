import { createCaseEvidenceService } from './cases/case-evidence.service.js';
import { createCaseReportService } from './cases/case-reports.service.js';
import { createCaseService } from './cases/cases.service.js';
import { openCase } from './cases/open-case.js';
import { createTriageService } from './cases/triage.service.js';
import { createFeedSchedule } from './clocks/feed-schedule.js';
import { createScheduler } from './clocks/scheduler.js';
import { createComplianceService } from './compliance/compliance.service.js';
import type { FeedConfig, WebhookConfig } from './config.js';
import type { Database } from './db/index.js';
import { createIncidentService } from './incidents/incidents.service.js';
import { createAttachmentStore } from './disclosure/attachment-store.js';
import { createDisclosureService } from './disclosure/disclosure.service.js';
import { createKeyService } from './keys/keys.service.js';
import { createOrgService } from './orgs/orgs.service.js';
import { createProductService } from './products/products.service.js';
import { createRegistryService } from './registry/registry.service.js';
import { createSbomReader } from './sbom/parse/sbom-reader.js';
import { createPortfolioService } from './sbom/portfolio/portfolio.service.js';
import { createSbomHistoryService } from './sbom/portfolio/sbom-history.service.js';
import { createSbomConformanceService } from './sbom/portfolio/conformance.service.js';
import { createSbomDocumentService } from './sbom/portfolio/sbom-documents.service.js';
import { createSbomIngestService } from './sbom/store/ingest.service.js';
import { createSecretBox, derivedKey } from './shared/secret-box.js';
import { systemClock, type Clock } from './shared/time.js';
import { createSetupService } from './users/setup.service.js';
import { createUserService, DEFAULT_SESSION_LIMITS } from './users/users.service.js';
import { createDispatcher } from './webhooks/dispatcher.js';
import { webhookSecrets } from './webhooks/secret-storage.js';
import type { Lookup } from './webhooks/ssrf.js';
import { createRecordPool } from './vulns/feeds/prepared-records.js';
import { createVulnService } from './vulns/services/vulns.service.js';
import { createWebhookService } from './webhooks/webhooks.service.js';

// The one composition root: every domain service and every long-lived object (the SBOM parse
// threads, the webhook dispatcher and the clock scheduler, the sealed-secret keys) is built
// here, once, on one database and one clock, and closed here. The API (app.ts), cra-admin
// (cli/), the console and the tests all take their services from here, so they are the same
// objects doing the same work. start-up.ts opens the database and calls this for the server
// and cra-admin alike.

export interface ServiceDeps {
  database: Database;
  clock?: Clock;
  /**
   * The console's key for TOTP secrets at rest (see shared/secret-box.ts) and its idle
   * limit. Without a secret, users can be invited, listed and disabled, not enrolled or signed in;
   * webhook endpoints (whose secrets it seals too) can be listed and disabled, not added or rotated.
   */
  console?: { secret: string | null; idleMinutes?: number };
  /** Which webhook endpoint URLs are admitted (WEBHOOK_ALLOW_PRIVATE); non-public ones are refused when absent. */
  webhookPolicy?: { allowPrivate: boolean; lookup?: Lookup };
  /** The dispatcher's and scheduler's settings; they run only once `workers.start()` is called (the server). */
  workers?: WebhookConfig;
  /** Vulnerability feeds: how URLs are fetched, and which the server fetches on a schedule. */
  feeds?: FeedConfig;
  /** Disclosure attachments on SQLite: their directory (start-up.ts: ATTACHMENTS_DIR or beside the database). */
  attachmentsDir?: string | null;
  /**
   * A full garbage collection that bulk jobs (feed imports) may pause for now and then, keeping
   * their memory near what they hold (cra-admin: shared/full-collection.ts). The server passes
   * none: a request must not wait for one. `everyRecords`: vulns/services/feeds.service.ts's COLLECT_EVERY_RECORDS.
   */
  collectGarbage?: { collect(): void; everyRecords?: number };
  /** Where the background workers report trouble. */
  log?: { info?(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

export function createServices({
  database,
  clock = systemClock,
  console: consoleOptions,
  webhookPolicy,
  workers,
  feeds,
  attachmentsDir = null,
  collectGarbage,
  log,
}: ServiceDeps) {
  const orgs = createOrgService(database, clock);
  const products = createProductService(database, orgs, clock);
  const box = consoleOptions?.secret ? createSecretBox(consoleOptions.secret) : null;
  const secrets = webhookSecrets(consoleOptions?.secret ?? null);
  const idleMs = (consoleOptions?.idleMinutes ?? DEFAULT_SESSION_LIMITS.idleMs / 60_000) * 60_000;
  const sbomReader = createSbomReader();
  const sbomDocuments = createSbomDocumentService(database, orgs, products);
  /** The organisation's SBOM policy and each revision's conformance reports (sbom-conformance.md). */
  const sbomConformance = createSbomConformanceService(database, orgs, products, clock);
  const feedRecords = createRecordPool();
  // Case changes write their webhook events to the outbox themselves, in their own transaction
  // (cases/case-events.ts): the one seam between the workflow and webhooks.
  const caseOptions = { clock };
  const cases = createCaseService(database, orgs, products, caseOptions);
  const reports = createCaseReportService(database, orgs, cases, caseOptions);
  const vulns = createVulnService(database, orgs, products, {
    clock,
    log,
    fetchPolicy: feeds ? { allowPrivate: feeds.allowPrivate, maxBytes: feeds.maxBytes, nvdApiKey: feeds.nvdApiKey } : undefined,
    collectGarbage,
    records: feedRecords,
  });
  // Reporter identities and attachments are sealed under their own key from CONSOLE_SECRET.
  const disclosureBox = consoleOptions?.secret ? createSecretBox(consoleOptions.secret, 'cra-disclosure') : null;
  const attachments =
    disclosureBox && (database.dialect === 'postgres' || attachmentsDir)
      ? createAttachmentStore(database, disclosureBox, attachmentsDir)
      : null;
  const disclosure = createDisclosureService(database, orgs, {
    clock,
    box: disclosureBox,
    attachments,
  });
  const background = workers ? webhookWorkers(database, workers, { secrets, clock, lookup: webhookPolicy?.lookup, log }) : null;
  const feedSchedule =
    workers && feeds?.urls.length
      ? createFeedSchedule({
          database,
          urls: feeds.urls,
          everyMs: feeds.everyMs,
          importFeeds: (urls) => vulns.importFeeds(urls),
          clock,
          log,
        })
      : null;
  return {
    database,
    clock,
    orgs,
    products,
    keys: createKeyService(database, orgs, clock),
    // Intake in mode `case` opens the case in the signal's transaction: the cases feature's own opening.
    incidents: createIncidentService(database, orgs, { clock, openCase }),
    cases,
    triage: createTriageService(database, orgs, caseOptions),
    reports,
    // The bundle holds the documents as received of the revisions it names, read through sbom/.
    evidence: createCaseEvidenceService(database, orgs, cases, reports, { clock, documents: sbomDocuments, conformance: sbomConformance }),
    compliance: createComplianceService(database, orgs, clock),
    sbomReader,
    sbom: createSbomIngestService(database, orgs, products, sbomReader, {
      clock,
      // Each new revision's components are matched after it commits, off the request's path.
      onStored: (productId, componentIds, revision) => vulns.afterIngest(productId, componentIds, revision),
    }),
    sbomHistory: createSbomHistoryService(database, orgs, products),
    /** The organisation's SBOM policy and each revision's conformance reports (sbom-conformance.md). */
    sbomConformance,
    sbomDocuments,
    users: createUserService(database, orgs, { clock, box, sessions: { ...DEFAULT_SESSION_LIMITS, idleMs } }),
    /** First-run set-up: the one-time link that creates the first organisation and its owner. */
    setup: createSetupService(database, orgs, { clock, box, sessions: { ...DEFAULT_SESSION_LIMITS, idleMs } }),
    /** Binds the console's CSRF tokens to their session (console/csrf.ts); the same on every instance. */
    consoleCsrfKey: derivedKey(consoleOptions?.secret ?? null, 'cra-console-csrf'),
    /** Binds the public report form's tokens to their organisation (disclosure/http); the same on every instance. */
    disclosureCsrfKey: derivedKey(consoleOptions?.secret ?? null, 'cra-disclosure-csrf'),
    webhooks: createWebhookService(database, orgs, {
      allowPrivate: webhookPolicy?.allowPrivate ?? false,
      lookup: webhookPolicy?.lookup,
      secrets,
      clock,
    }),
    portfolio: createPortfolioService(database, orgs, products),
    vulns,
    registry: createRegistryService(database, orgs, clock),
    /** Coordinated vulnerability disclosure: public pages' settings, reports, follow-up links, conversations. */
    disclosure,
    /** Webhook delivery and clock events, on timers beside the API (never inside a request). */
    workers: {
      start(): void {
        if (!background) throw new Error('createServices was given no worker settings');
        background.start();
        feedSchedule?.start();
      },
      /** Stops claiming and ticking; resolves once the sends in flight are recorded (within the send timeout). */
      async stop(): Promise<void> {
        await Promise.all([background?.stop(), feedSchedule?.stop()]);
      },
    },
    /** Stops the workers (sends in flight are recorded first) and the parse threads; the database stays open. */
    async close(): Promise<void> {
      await Promise.all([background?.stop(), feedSchedule?.stop(), sbomReader.close(), vulns.idle()]);
      await feedRecords.close();
    },
  };
}

export type Services = ReturnType<typeof createServices>;

/** The server's background half of webhooks: the dispatcher and the clock-event scheduler. */
function webhookWorkers(
  database: Database,
  config: WebhookConfig,
  deps: { secrets: ReturnType<typeof webhookSecrets>; clock: Clock; lookup?: Lookup; log?: ServiceDeps['log'] },
) {
  const dispatcher = createDispatcher({ database, config, ...deps });
  const scheduler = createScheduler({ database, intervalMs: config.schedulerIntervalMs, clock: deps.clock, log: deps.log });
  let started = false;
  return {
    start(): void {
      started = true;
      dispatcher.start();
      scheduler.start();
    },
    async stop(): Promise<void> {
      if (started) await Promise.all([scheduler.stop(), dispatcher.stop()]);
    },
  };
}
