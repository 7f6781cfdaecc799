import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Database, Trx } from '../../src/db/index.js';
import { createServices } from '../../src/services.js';
import { createTestDatabase, TEST_BACKEND, type TestDatabase } from '../helpers/db.js';

// Database.bulkInsert is implemented per dialect (native prepared statements on SQLite, chunked
// multi-row INSERTs on PostgreSQL); both must behave as writes of the transaction they are given.

const COLUMNS = ['org', 'key', 'name', 'version', 'purl', 'type', 'licenses', 'ref'] as const;

describe(`Database.bulkInsert (${TEST_BACKEND})`, () => {
  let t: TestDatabase;
  let database: Database;
  let orgId: string;
  let org: number;
  let productId: string;

  before(async () => {
    t = await createTestDatabase();
    database = t.database;
    const { orgs, products } = createServices({ database });
    orgId = (await orgs.createOrg({ slug: 'bulk' })).id;
    org = Number((await database.db.selectFrom('organisations').select('number').where('id', '=', orgId).executeTakeFirstOrThrow()).number);
    productId = (await products.addProduct('bulk', 'B-1', { name: 'Bulk' })).id;
  });
  after(async () => {
    await t.drop();
  });

  /** A revision row; its id prefixes the names of the components inserted with it, to find them again. */
  async function revision(trx: Trx): Promise<string> {
    const releaseId = randomUUID();
    const at = new Date().toISOString();
    await trx
      .insertInto('releases')
      .values({ id: releaseId, org_id: orgId, product_id: productId, version: releaseId, created_at: at })
      .execute();
    const id = randomUUID();
    await trx
      .insertInto('sbom_revisions')
      .values({
        id,
        org_id: orgId,
        product_id: productId,
        release_id: releaseId,
        revision: 1,
        format: 'cyclonedx',
        spec_version: '1.6',
        digest: id,
        components: 0,
        source: 'test',
        ingested_at: at,
      })
      .execute();
    return id;
  }

  /** Row i's key: unique within the organisation, as the (org, key) index wants. */
  const keyOf = (sbomId: string, i: number) => createHash('sha256').update(`${sbomId}/${i}`).digest().subarray(0, 16);

  const values = (sbomId: string, rows: number) =>
    Array.from({ length: rows }, (_, i) => [
      org,
      keyOf(sbomId, i),
      `${sbomId}/${String(i).padStart(5, '0')}`,
      i % 3 === 0 ? null : `1.${i}`,
      `pkg:npm/c-${i}`,
      'library',
      i % 2 ? '["MIT"]' : null,
      `ref-${i}`,
    ]).flat();

  const stored = (sbomId: string) =>
    database.db
      .selectFrom('components')
      .select(['org', 'key', 'name', 'version', 'purl', 'type', 'licenses', 'ref'])
      .where('name', 'like', `${sbomId}/%`)
      .orderBy('name')
      .execute();

  it('stores every row, in chunks of any size, values in column order', async () => {
    // 2,500 rows: full chunks and a remainder made of several smaller statements.
    const sbomId = await database.transaction(async (trx) => {
      const id = await revision(trx);
      await database.bulkInsert(trx, 'components', COLUMNS, values(id, 2_500));
      return id;
    });
    const rows = await stored(sbomId);
    assert.equal(rows.length, 2_500);
    rows.forEach((row, i) => {
      assert.deepEqual(
        { ...row, org: Number(row.org), key: Buffer.from(row.key) },
        {
          org,
          key: keyOf(sbomId, i),
          name: `${sbomId}/${String(i).padStart(5, '0')}`,
          version: i % 3 === 0 ? null : `1.${i}`,
          purl: `pkg:npm/c-${i}`,
          type: 'library',
          licenses: i % 2 ? '["MIT"]' : null,
          ref: `ref-${i}`,
        },
      );
    });
  });

  it('is undone with its transaction, and a concurrent transaction keeps its own rows', async () => {
    let failedId = '';
    const failing = database.transaction(async (trx) => {
      failedId = await revision(trx);
      await database.bulkInsert(trx, 'components', COLUMNS, values(failedId, 1_500));
      throw new Error('fails after its bulk insert');
    });
    // Started together: on SQLite both run in one group-committed batch, each in its savepoint.
    const succeeding = database.transaction(async (trx) => {
      const id = await revision(trx);
      await database.bulkInsert(trx, 'components', COLUMNS, values(id, 1_500));
      return id;
    });
    await assert.rejects(failing, /fails after its bulk insert/);
    const keptId = await succeeding;
    assert.equal((await stored(failedId)).length, 0);
    assert.equal((await database.db.selectFrom('sbom_revisions').select('id').where('id', '=', failedId).execute()).length, 0);
    assert.equal((await stored(keptId)).length, 1_500);
  });

  it('rejects values that do not make whole rows', async () => {
    await assert.rejects(
      database.transaction(async (trx) => {
        const id = await revision(trx);
        await database.bulkInsert(trx, 'components', COLUMNS, values(id, 2).slice(1));
      }),
      /do not make rows/,
    );
  });

  it('fails like any other write on a duplicate key, and the transaction is undone', async () => {
    let id = '';
    await assert.rejects(
      database.transaction(async (trx) => {
        id = await revision(trx);
        await database.bulkInsert(trx, 'components', COLUMNS, [...values(id, 3), ...values(id, 1)]);
      }),
    );
    assert.equal((await stored(id)).length, 0);
  });
});
