import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { OrgService } from '../../orgs/orgs.service.js';
import type { ProductService } from '../../products/products.service.js';
import { sbomHistoryRepo, type ComponentListing, type RevisionListing } from './sbom-history.repo.js';

/** What was ingested for a product: its releases' SBOM revisions and their components. */
export function createSbomHistoryService(database: Database, orgs: OrgService, products: ProductService) {
  return {
    async revisions(orgSlug: string, sku: string): Promise<RevisionListing[]> {
      const org = await orgs.requireOrg(orgSlug);
      const product = await products.requireProduct(org.id, sku);
      return sbomHistoryRepo.revisions(database.db, product.id);
    },

    /** One revision and a page of its components, in document order. */
    async revision(
      orgSlug: string,
      sku: string,
      releaseVersion: string,
      revision: number,
      page: { offset: number; limit: number },
    ): Promise<{ revision: RevisionListing; components: ComponentListing[] }> {
      const org = await orgs.requireOrg(orgSlug);
      const product = await products.requireProduct(org.id, sku);
      const found = await sbomHistoryRepo.findRevision(database.db, product.id, releaseVersion, revision);
      if (!found) throw new AppError('not_found', `no revision ${revision} of release ${releaseVersion}`);
      return {
        revision: found,
        components: await sbomHistoryRepo.components(database.db, product.org_id, found.id, page.offset, page.limit),
      };
    },
  };
}

export type SbomHistoryService = ReturnType<typeof createSbomHistoryService>;
