import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * An organisation with one product (GW-1), its release 1.0.0 and a first SBOM revision of
 * `components` components, written straight into a database migrated to an earlier schema
 * (the migration tests: rows as an older version stored them). `organisation` adds columns of
 * that schema's organisations row (014's `number`). The components themselves are the test's.
 */
export async function legacyRevision(
  legacy: Kysely<any>,
  slug: string,
  components: number,
  organisation: Record<string, unknown> = {},
): Promise<{ id: string; productId: string; sbomId: string }> {
  const at = '2026-11-01T00:00:00.000Z';
  const ids = { id: randomUUID(), productId: randomUUID(), sbomId: randomUUID() };
  await legacy
    .insertInto('organisations')
    .values({ id: ids.id, slug, name: slug, intake_mode: 'signal', created_at: at, registry_head: '', ...organisation })
    .execute();
  await legacy
    .insertInto('products')
    .values({
      id: ids.productId,
      org_id: ids.id,
      sku: 'GW-1',
      name: 'Gateway',
      status: 'active',
      sbom_status: 'current',
      sbom_components: components,
      created_at: at,
      updated_at: at,
    })
    .execute();
  const releaseId = randomUUID();
  await legacy
    .insertInto('releases')
    .values({ id: releaseId, org_id: ids.id, product_id: ids.productId, version: '1.0.0', created_at: at })
    .execute();
  await legacy
    .insertInto('sbom_revisions')
    .values({
      id: ids.sbomId,
      org_id: ids.id,
      product_id: ids.productId,
      release_id: releaseId,
      revision: 1,
      format: 'cyclonedx',
      spec_version: '1.6',
      digest: ids.sbomId,
      components,
      source: 'cli',
      ingested_at: at,
    })
    .execute();
  return ids;
}
