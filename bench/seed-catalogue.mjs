// A large catalogue for the compression rows: `count` products inserted straight into the
// benchmark's database in one transaction (adding them one by one through cra-admin would take
// minutes). Runs before the server starts, so no cache has seen the organisation yet.
import { randomUUID } from 'node:crypto';
import { migrateToLatest, openDatabase } from '../dist/db/index.js';

export async function seedCatalogue(databaseUrl, orgId, count) {
  const database = openDatabase(databaseUrl);
  try {
    await migrateToLatest(database);
    const at = new Date().toISOString();
    await database.transaction(async (trx) => {
      for (let start = 0; start < count; start += 500) {
        const rows = Array.from({ length: Math.min(500, count - start) }, (_, k) => {
          const i = start + k;
          return {
            id: randomUUID(),
            org_id: orgId,
            sku: `BIG-${String(i).padStart(5, '0')}`,
            name: `Catalogue product ${i}`,
            gtin: null,
            gtin_declared: null,
            firmware_version: `3.${i % 50}.${i % 7}`,
            end_of_support: '2032-06-30T00:00:00.000Z',
            status: i % 10 === 0 ? 'archived' : 'active',
            sbom_status: i % 3 === 0 ? 'cyclonedx' : 'none',
            sbom_components: i % 3 === 0 ? 120 + (i % 400) : 0,
            created_at: at,
            updated_at: at,
          };
        });
        await trx.insertInto('products').values(rows).execute();
      }
    });
  } finally {
    await database.close();
  }
}
