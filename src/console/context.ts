import type { CaseEvidenceService } from '../cases/case-evidence.service.js';
import type { CaseReportService } from '../cases/case-reports.service.js';
import type { CaseService } from '../cases/cases.service.js';
import type { TriageService } from '../cases/triage.service.js';
import type { ComplianceService } from '../compliance/compliance.service.js';
import type { Config } from '../config.js';
import type { SessionStage, UserRow } from '../db/schema.js';
import type { DisclosureService } from '../disclosure/disclosure.service.js';
import type { IncidentService } from '../incidents/incidents.service.js';
import type { KeyService } from '../keys/keys.service.js';
import type { OrgService } from '../orgs/orgs.service.js';
import type { ProductService } from '../products/products.service.js';
import type { RegistryService } from '../registry/registry.service.js';
import type { BodyBudget } from '../sbom/http/body-budget.js';
import type { PortfolioService } from '../sbom/portfolio/portfolio.service.js';
import type { SbomConformanceService } from '../sbom/portfolio/conformance.service.js';
import type { SbomDocumentService } from '../sbom/portfolio/sbom-documents.service.js';
import type { SbomHistoryService } from '../sbom/portfolio/sbom-history.service.js';
import type { SbomIngestService } from '../sbom/store/ingest.service.js';
import type { Clock } from '../shared/time.js';
import type { SetupService } from '../users/setup.service.js';
import type { MembershipView, UserService } from '../users/users.service.js';
import type { VulnService } from '../vulns/services/vulns.service.js';
import type { WebhookService } from '../webhooks/webhooks.service.js';

/**
 * What the console's pages are given: the services they call (the composition root's own
 * objects, the same as the API's and the CLI's, handed over by app.ts), named here by their
 * features so that the console never imports the root above it; and the API's bound on SBOM
 * bodies in memory (the upload form holds from it too).
 */
export interface ConsoleDeps {
  config: Config;
  clock: Clock;
  /** Binds the CSRF tokens to their session (csrf.ts). */
  consoleCsrfKey: Buffer;
  sbomBodies: BodyBudget;
  orgs: OrgService;
  users: UserService;
  setup: SetupService;
  keys: KeyService;
  products: ProductService;
  sbom: SbomIngestService;
  sbomHistory: SbomHistoryService;
  sbomConformance: SbomConformanceService;
  sbomDocuments: SbomDocumentService;
  portfolio: PortfolioService;
  incidents: IncidentService;
  triage: TriageService;
  cases: CaseService;
  reports: CaseReportService;
  evidence: CaseEvidenceService;
  compliance: ComplianceService;
  vulns: VulnService;
  webhooks: WebhookService;
  disclosure: DisclosureService;
  registry: RegistryService;
}

/** The signed-in person and, on /console/o/:org pages, the organisation they are working in. */
export interface ConsoleViewer {
  user: UserRow;
  memberships: MembershipView[];
  sessionDigest: string;
  stage: SessionStage;
  org: MembershipView | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    viewer: ConsoleViewer | null;
  }
}

/** The registry actor for changes made in the console. */
export function actorOf(viewer: ConsoleViewer): string {
  return `user:${viewer.user.email}`;
}
