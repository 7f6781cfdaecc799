import { createCaseService } from './cases/cases.service.js';
import { createComplianceService } from './compliance/compliance.service.js';
import type { Database } from './db/index.js';
import { createIncidentService } from './incidents/incidents.service.js';
import { createKeyService } from './keys/keys.service.js';
import { createOrgService } from './orgs/orgs.service.js';
import { createProductService } from './products/products.service.js';
import { createSbomIngestService } from './sbom/ingest.service.js';
import { systemClock, type Clock } from './shared/time.js';

// The one composition root: every domain service is built here, once, on one database and one
// clock. The API (app.ts), the admin CLI (cli/context.ts), the console and the tests all take
// their services from here, so they are the same objects doing the same work.

export interface ServiceDeps {
  database: Database;
  clock?: Clock;
}

export function createServices({ database, clock = systemClock }: ServiceDeps) {
  const orgs = createOrgService(database, clock);
  const products = createProductService(database, orgs, clock);
  return {
    database,
    clock,
    orgs,
    products,
    keys: createKeyService(database, orgs, clock),
    incidents: createIncidentService(database, clock),
    cases: createCaseService(database, orgs, products, clock),
    compliance: createComplianceService(database, orgs, clock),
    sbom: createSbomIngestService(database, products, clock),
  };
}

export type Services = ReturnType<typeof createServices>;
