import { createCaseEvidenceService } from './cases/case-evidence.service.js';
import { createCaseReportService } from './cases/case-reports.service.js';
import { createCaseService } from './cases/cases.service.js';
import { createTriageService } from './cases/triage.service.js';
import { createComplianceService } from './compliance/compliance.service.js';
import type { Database } from './db/index.js';
import { createIncidentService } from './incidents/incidents.service.js';
import { createKeyService } from './keys/keys.service.js';
import { createOrgService } from './orgs/orgs.service.js';
import { createProductService } from './products/products.service.js';
import { createRegistryService } from './registry/registry.service.js';
import { createSbomIngestService } from './sbom/ingest.service.js';
import { createSbomHistoryService } from './sbom/sbom-history.service.js';
import { createPortfolioService } from './sbom/portfolio.service.js';
import { systemClock, type Clock } from './shared/time.js';
import { createSecretBox } from './console/auth/secret-box.js';
import { createUserService, DEFAULT_SESSION_LIMITS } from './console/auth/users.service.js';
import type { Lookup } from './webhooks/ssrf.js';
import { webhookSecrets } from './webhooks/secret-storage.js';
import { createWebhookService } from './webhooks/webhooks.service.js';

// The one composition root: every domain service is built here, once, on one database and one
// clock. The API (app.ts), the admin CLI (cli/context.ts), the console and the tests all take
// their services from here, so they are the same objects doing the same work.

export interface ServiceDeps {
  database: Database;
  clock?: Clock;
  /**
   * The console's key for TOTP secrets at rest (see console/auth/secret-box.ts) and its idle
   * limit. Without a secret, users can be invited, listed and disabled, not enrolled or signed in;
   * webhook endpoints (whose secrets it seals too) can be listed and disabled, not added or rotated.
   */
  console?: { secret: string | null; idleMinutes?: number };
  /** Which webhook endpoint URLs are admitted (WEBHOOK_ALLOW_PRIVATE); non-public ones are refused when absent. */
  webhookPolicy?: { allowPrivate: boolean; lookup?: Lookup };
}

export function createServices({ database, clock = systemClock, console: consoleOptions, webhookPolicy }: ServiceDeps) {
  const orgs = createOrgService(database, clock);
  const products = createProductService(database, orgs, clock);
  const box = consoleOptions?.secret ? createSecretBox(consoleOptions.secret) : null;
  const idleMs = (consoleOptions?.idleMinutes ?? DEFAULT_SESSION_LIMITS.idleMs / 60_000) * 60_000;
  // Case changes write their webhook events to the outbox themselves, in their own transaction
  // (webhooks/case-events.ts): the one seam between the workflow and webhooks.
  const caseOptions = { clock };
  const cases = createCaseService(database, orgs, products, caseOptions);
  const reports = createCaseReportService(database, orgs, cases, caseOptions);
  return {
    database,
    clock,
    orgs,
    products,
    keys: createKeyService(database, orgs, clock),
    incidents: createIncidentService(database, orgs, clock),
    cases,
    triage: createTriageService(database, orgs, caseOptions),
    reports,
    evidence: createCaseEvidenceService(database, orgs, cases, reports, { clock }),
    compliance: createComplianceService(database, orgs, clock),
    sbom: createSbomIngestService(database, orgs, products, clock),
    sbomHistory: createSbomHistoryService(database, orgs, products),
    users: createUserService(database, orgs, { clock, box, sessions: { ...DEFAULT_SESSION_LIMITS, idleMs } }),
    webhooks: createWebhookService(database, orgs, {
      allowPrivate: webhookPolicy?.allowPrivate ?? false,
      lookup: webhookPolicy?.lookup,
      secrets: webhookSecrets(consoleOptions?.secret ?? null),
      clock,
    }),
    portfolio: createPortfolioService(database, orgs, products),
    registry: createRegistryService(database, orgs, clock),
  };
}

export type Services = ReturnType<typeof createServices>;
