import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { migrateToLatest } from '../../src/db/index.js';
import { allowDirectWrites, databaseMigratedTo } from '../helpers/db.js';

// A migrator of its own writes outside Database.transaction.
allowDirectWrites();

describe('migrations on a database that already holds data', () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('008 keeps the GTIN of existing products: the stored 14-digit form becomes the declared one', async () => {
    const { database, remove } = await databaseMigratedTo('001-initial');
    cleanups.push(remove);

    // A product as the code before 008 stored it: GTIN-13 padded to 14 digits, no declared form.
    const org = randomUUID();
    const at = '2026-11-01T00:00:00.000Z';
    await database.db
      .insertInto('organisations')
      .values({ id: org, slug: 'old', name: 'Old', intake_mode: 'signal', created_at: at, registry_head: '' })
      .execute();
    const product = (sku: string, gtin: string | null) =>
      ({
        id: randomUUID(),
        org_id: org,
        sku,
        name: sku,
        gtin,
        status: 'active',
        sbom_status: 'none',
        sbom_components: 0,
        created_at: at,
        updated_at: at,
      }) as const;
    await database.db
      .insertInto('products')
      .values([product('A', '04006381333931'), product('B', null)] as never)
      .execute();

    assert.ok((await migrateToLatest(database)).includes('008-gtin-declared'));
    const rows = await database.db.selectFrom('products').select(['sku', 'gtin', 'gtin_declared']).orderBy('sku').execute();
    assert.deepEqual(rows, [
      { sku: 'A', gtin: '04006381333931', gtin_declared: '04006381333931' },
      { sku: 'B', gtin: null, gtin_declared: null },
    ]);
  });
});
