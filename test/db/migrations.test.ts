import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Migrator, type Migration } from 'kysely';
import { migrateToLatest, openDatabase } from '../../src/db/index.js';
import { migrations } from '../../src/db/migrations/index.js';
import { columnTypes } from '../../src/db/migrations/types.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';

describe('migrations on a database that already holds data', () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('008 keeps the GTIN of existing products: the stored 14-digit form becomes the declared one', async () => {
    const empty = await createEmptyDatabaseUrl();
    const database = openDatabase(empty.url);
    cleanups.push(
      () => empty.drop(),
      () => database.close(),
    );
    const t = columnTypes(database.dialect);
    const migrator = new Migrator({
      db: database.db,
      provider: {
        getMigrations: async () => Object.fromEntries(migrations.map((m): [string, Migration] => [m.name, { up: (db) => m.up(db, t) }])),
      },
    });
    const first = await migrator.migrateTo('001-initial');
    assert.equal(first.error, undefined);

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
