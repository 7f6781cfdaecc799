import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Migrator, type Kysely } from 'kysely';
import { openDatabase, migrateToLatest, type Database } from '../../../src/db/index.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { columnTypes } from '../../../src/db/migrations/types.js';
import { createOrgService } from '../../../src/orgs/orgs.service.js';
import { createProductService } from '../../../src/products/products.service.js';
import { createSbomReader } from '../../../src/sbom/parse/sbom-reader.js';
import { componentsRepo } from '../../../src/sbom/store/components.repo.js';
import { decodeIds, encodeIds, idsAmong } from '../../../src/sbom/store/id-list.js';
import { createSbomIngestService } from '../../../src/sbom/store/ingest.service.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../../helpers/app.js';
import { allowDirectWrites, createEmptyDatabaseUrl, TEST_BACKEND } from '../../helpers/db.js';
import { cycloneDx16 } from '../sbom-fixtures.js';

// A migrator of its own writes outside Database.transaction.
allowDirectWrites();

const count = async (database: Database, table: 'components' | 'sbom_members' | 'sbom_revisions') =>
  Number(
    (
      await database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('packed id lists', () => {
  it('round-trip any ids, in any order, with repeats; consecutive ids take a byte each', () => {
    const lists = [
      [],
      [1],
      [1, 2, 3, 4],
      [5, 3, 3, 9_000_000, 1, 2 ** 31 - 1, 7],
      Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1201),
    ];
    for (const ids of lists) assert.deepEqual(decodeIds(encodeIds(ids)), ids);
    assert.equal(encodeIds(Array.from({ length: 10_000 }, (_, i) => i + 1)).length, 10_000);
  });
  it('idsAmong finds the wanted ids a list holds, each once', () => {
    const list = encodeIds([5, 3, 3, 9_000_000, 1, 7, 3]);
    assert.deepEqual(idsAmong(list, new Set([3, 7, 8])), [3, 7]);
    assert.deepEqual(idsAmong(list, new Set([9_000_000, 2])), [9_000_000]);
    assert.deepEqual(idsAmong(list, new Set([4])), []);
  });
});

describe(`SBOM revisions share their components (${TEST_BACKEND})`, () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown);
    acme = await h.tenant('acme', ['products:write']);
    await h.products.addProduct('acme', 'RTR-1', { name: 'Router' });
  });
  const post = (doc: unknown) =>
    h.request({
      method: 'POST',
      url: '/api/v1/external/products/RTR-1/sbom',
      key: acme.key,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(doc),
    });

  it('a new revision stores only the components that changed; each revision reads back whole, in document order', async () => {
    const first = cycloneDx16(200, { version: '1.0.0' });
    const r1 = await post(first);
    assert.equal(r1.statusCode, 201, r1.body);
    assert.equal(await count(h.database, 'components'), 200);
    // 1 % changed: two components get a new version, one is added.
    const second = cycloneDx16(200, { version: '1.0.0' });
    second.components[10].version = '9.9.9';
    second.components[20].licenses = [{ license: { id: 'Apache-2.0' } }];
    second.components.push({ type: 'library', name: 'extra', version: '1.0.0', purl: 'pkg:npm/extra@1.0.0' });
    const r2 = await post(second);
    assert.equal(r2.statusCode, 201, r2.body);
    assert.equal(r2.json().components, 201);
    assert.equal(await count(h.database, 'components'), 203);
    const stored = await componentsRepo.ofRevision(h.database.db, acme.orgId, r2.json().sbom_id);
    assert.deepEqual(
      stored.map((c) => [c.name, c.version, c.purl, c.licenses]),
      second.components.map((c: any) => [
        c.name,
        c.version,
        c.purl,
        c.licenses ? JSON.stringify(c.licenses.map((l: any) => l.license.id)) : null,
      ]),
    );
    const before = await componentsRepo.ofRevision(h.database.db, acme.orgId, r1.json().sbom_id);
    assert.equal(before[10]!.version, '1.0.10');
  });

  it('another organisation stores its own copy (tenancy)', async () => {
    const other = await h.tenant('other', ['products:write']);
    await h.products.addProduct('other', 'THEIRS', { name: 'Theirs' });
    const before = await count(h.database, 'components');
    const res = await h.request({
      method: 'POST',
      url: '/api/v1/external/products/THEIRS/sbom',
      key: other.key,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(cycloneDx16(5)),
    });
    assert.equal(res.statusCode, 201);
    assert.equal(await count(h.database, 'components'), before + 5);
    assert.deepEqual(await componentsRepo.ofRevision(h.database.db, acme.orgId, res.json().sbom_id), []);
  });
});

describe(`migration 002 moves the existing component rows (${TEST_BACKEND})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  before(async () => {
    const url = await createEmptyDatabaseUrl();
    drop = url.drop;
    database = openDatabase(url.url);
  });
  after(async () => {
    await database.close();
    await drop();
  });

  it('runs after later-numbered ones; every revision keeps its components in order, each distinct one stored once; an upload afterwards reuses them', async () => {
    const t = columnTypes(database.dialect);
    const migrator = new Migrator({
      db: database.db,
      // Every migration but 002: as a database that ran a later-numbered migration before 002
      // existed. (And but 014, which rebuilds 002's table, and 015, 016 and 018, which change 014's:
      // they shipped after 002, and run after it.)
      provider: {
        getMigrations: async () =>
          Object.fromEntries(
            migrations
              .filter(
                (m) =>
                  ![
                    '002-shared-components',
                    '014-compact-components',
                    '015-abbreviated-components',
                    '016-name-prefixed-keys',
                    '018-firmware',
                  ].includes(m.name),
              )
              .map((m) => [m.name, { up: (db: Kysely<any>) => m.up(db, t) }]),
          ),
      },
    });
    const { error } = await migrator.migrateToLatest();
    assert.equal(error, undefined);
    assert.ok(
      (await migrator.getMigrations()).some((m) => m.name > '002' && m.executedAt),
      'a later migration ran first',
    );
    const orgs = createOrgService(database);
    const products = createProductService(database, orgs);
    const org = await orgs.createOrg({ slug: 'legacy' });
    const product = await products.addProduct('legacy', 'OLD-1', { name: 'Old' });
    const legacy = database.db as unknown as Kysely<any>;
    const releaseId = randomUUID();
    const at = '2026-01-01T00:00:00.000Z';
    await legacy
      .insertInto('releases')
      .values({ id: releaseId, org_id: org.id, product_id: product.id, version: '1.0.0', created_at: at })
      .execute();
    // Rows as the ingest of cycloneDx16 wrote them before: revision 2 drops lib-0 and adds lib-3.
    const row = (i: number) => ({
      name: `lib-${i}`,
      version: `1.0.${i}`,
      purl: `pkg:npm/lib-${i}@1.0.${i}`,
      type: 'library',
      licenses: '["MIT"]',
      ref: `pkg:npm/lib-${i}@1.0.${i}`,
    });
    const revisions = [
      { id: randomUUID(), rows: [row(0), row(1), row(2)] },
      {
        id: randomUUID(),
        rows: [row(1), row(2), row(3), { name: 'bare', version: null, purl: null, type: null, licenses: null, ref: null }],
      },
    ];
    for (const [n, r] of revisions.entries()) {
      await legacy
        .insertInto('sbom_revisions')
        .values({
          id: r.id,
          org_id: org.id,
          product_id: product.id,
          release_id: releaseId,
          revision: n + 1,
          format: 'cyclonedx',
          spec_version: '1.6',
          digest: r.id,
          components: r.rows.length,
          source: 'cli',
          ingested_at: at,
        })
        .execute();
      await legacy
        .insertInto('sbom_components')
        .values(r.rows.map((c, position) => ({ sbom_id: r.id, position, ...c })))
        .execute();
    }

    await migrateToLatest(database);
    assert.equal(await count(database, 'components'), 5);
    for (const r of revisions) {
      const stored = await componentsRepo.ofRevision(database.db, org.id, r.id);
      assert.deepEqual(
        stored.map(({ id: _, ...c }) => c),
        r.rows.map((row) => ({ ...row, cpes: null })),
      );
    }
    await assert.rejects(legacy.selectFrom('sbom_components').selectAll().execute(), 'the old table is gone');

    // Keys computed by the migration and by the ingest agree: the same components are not stored again.
    const reader = createSbomReader();
    const sbom = createSbomIngestService(database, orgs, products, reader);
    const doc = cycloneDx16(4, { version: '1.0.0' });
    const result = await sbom
      .ingestSbom({ orgId: org.id, sku: 'OLD-1', bytes: Buffer.from(JSON.stringify(doc)), actor: 'cli' })
      .finally(reader.close);
    assert.equal(result.revision, 3);
    assert.equal(await count(database, 'components'), 5);
  });
});
