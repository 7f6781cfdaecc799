import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/index.js';
import { frozen016 } from '../../src/db/migrations/016-name-prefixed-keys.js';
import { componentKey, decodeKeys, namePrefix, storedComponentText } from '../../src/sbom/parse/component-rows.js';
import { fieldsAt, KEY_STRIDE, readSbomBytes } from '../../src/sbom/parse/read-sbom.js';
import { componentsRepo } from '../../src/sbom/store/components.repo.js';
import { encodeIds } from '../../src/sbom/store/id-list.js';
import { createServices } from '../../src/services.js';
import { allowDirectWrites, databaseMigratedTo, TEST_BACKEND } from '../helpers/db.js';
import { legacyRevision } from '../helpers/legacy-rows.js';
import { cycloneDx16 } from '../sbom/sbom-fixtures.js';

// A migrator of its own writes outside Database.transaction.
allowDirectWrites();

// Migration 016 re-keys every stored component: its name's 3 bytes (namePrefix), then the first 13
// of the content digest its key held, under one unique index (org, key). What it computes must
// be what the live parse worker computes, or an upload afterwards would store the same
// components again and a search by name would miss the old ones.

describe('migration 016 agrees with the live SBOM code', () => {
  it("computes the same name's bytes", () => {
    const names = ['', 'lodash', '@babel/core', 'log4j-core', 'zlib-ñandú-日本語-€-😀', '\u{1d518}', 'a'.repeat(1000), 'x\u0000y'];
    for (let i = 0; i < 5_000; i++) names.push(`pkg-${i}-${String.fromCharCode(32 + (i % 5000))}`);
    for (const name of names) assert.equal(frozen016.namePrefix(name), namePrefix(name), JSON.stringify(name));
    // Pinned: a change to the function is a change to every stored key.
    assert.deepEqual(
      ['', 'lodash', '@babel/core'].map((n) => namePrefix(n)),
      [0x007c0b, 0x6c3256, 0x4061a1],
    );
  });

  it("re-keys an 014 key (the text's SHA-256, 16 bytes) into the key the ingest writes", () => {
    for (let i = 0; i < 2_000; i++) {
      const text = storedComponentText({
        name: `c-${i}-${'ü'.repeat(i % 5)}`,
        version: `${i}`,
        purl: `pkg:npm/c-${i}@${i}`,
        type: 'library',
        licenses: null,
        ref: null,
      });
      const old = createHash('sha256').update(text).digest().subarray(0, 16);
      const live = Buffer.from(decodeKeys(Buffer.from(`${componentKey(text)}`, 'latin1'), KEY_STRIDE, [0]));
      assert.deepEqual(frozen016.rekeyed(text.split('\u0000')[0]!, old), live, text);
    }
  });
});

describe(`migration 016 on a database that holds components (${TEST_BACKEND})`, () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('re-keys every component in steps, keeps ids; uploads afterwards reuse them, search finds them', async () => {
    const { database, remove } = await databaseMigratedTo('015-abbreviated-components');
    cleanups.push(remove);
    const legacy = database.db as unknown as Kysely<any>;

    // More components than one step of the migration, one named otherwise than its purl, one
    // with no version; two organisations holding the same components under their own rows.
    const doc = cycloneDx16(2_345, { version: '1.0.0' });
    doc.components[2] = { ...doc.components[2], name: '@scope/lib-2', purl: 'pkg:npm/%40scope/lib-2@1.0.2' };
    delete doc.components[3].version;
    const bytes = Buffer.from(JSON.stringify(doc));
    const reading = readSbomBytes(bytes);
    const fields = Array.from({ length: reading.count }, (_, i) => fieldsAt(reading, i));
    const orgs: Array<{ id: string; sbomId: string; ids: number[] }> = [];
    let nextId = 10;
    for (const [n, slug] of ['acme', 'globex'].entries()) {
      const org = { ...(await legacyRevision(legacy, slug, reading.count, { number: 7 + n })), ids: [] as number[] };
      // Stored whole (forms 0) under 014's key: the first 16 bytes of the SHA-256 of the text.
      // The columns of that time: no `cpes` yet (migration 018).
      const rows = fields.map(({ cpes: _cpes, ...f }, i) => {
        nextId += 2;
        org.ids.push(nextId);
        return {
          id: nextId,
          org: 7 + n,
          key: createHash('sha256').update(storedComponentText(f)).digest().subarray(0, 16),
          ...f,
          purl_name_differs: i === 2 ? 1 : 0,
        };
      });
      for (let i = 0; i < rows.length; i += 500)
        await legacy
          .insertInto('components')
          .values(rows.slice(i, i + 500))
          .execute();
      await legacy
        .insertInto('sbom_members')
        .values({ sbom_id: org.sbomId, component_ids: encodeIds(org.ids) })
        .execute();
      orgs.push(org);
    }

    // 016 runs first (the later migrations after it).
    assert.equal((await migrateToLatest(database))[0], '016-name-prefixed-keys');

    for (const org of orgs) {
      const stored = await componentsRepo.ofRevision(database.db, org.id, org.sbomId);
      assert.deepEqual(
        stored.map((c) => c.id),
        org.ids,
        'ids kept',
      );
      assert.deepEqual(
        stored.map(({ id: _, ...c }) => c),
        fields,
      );
      const keys = await database.db.selectFrom('components').select(['id', 'key']).where('id', 'in', org.ids).orderBy('id').execute();
      assert.equal(keys.length, reading.count);
      keys.forEach((row, i) => {
        assert.deepEqual(Buffer.from(row.key), Buffer.from(decodeKeys(reading.keys, KEY_STRIDE, [i])), `key of ${i}`);
      });
    }

    const services = createServices({ database });
    try {
      const count = async () =>
        Number(
          (
            await database.db
              .selectFrom('components')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      // The same document again finds every component by its new key.
      const again = await services.sbom.ingestSbom({ orgId: orgs[0]!.id, sku: 'GW-1', bytes, actor: 'cli' });
      assert.equal(await count(), before, 'nothing stored twice');
      assert.deepEqual(
        (await componentsRepo.ofRevision(database.db, orgs[0]!.id, again.sbom.sbom_id)).map((c) => c.id),
        orgs[0]!.ids,
      );

      // Search by name, by name and version, and by purl reads the moved rows, each
      // organisation its own.
      const byName = await services.portfolio.searchComponents('globex', { name: 'lib-2000' });
      assert.deepEqual(
        byName.map((h) => [h.revision, h.component.name, h.component.version]),
        [[1, 'lib-2000', '1.0.2000']],
      );
      const byVersion = await services.portfolio.searchComponents('acme', { name: 'lib-3', version: '1.0.3' });
      assert.deepEqual(byVersion, [], 'lib-3 has no version');
      const unversioned = await services.portfolio.searchComponents('acme', { name: 'lib-3' });
      assert.deepEqual(
        unversioned.map((h) => [h.revision, h.component.version]),
        [
          [2, null],
          [1, null],
        ],
      );
      const byPurl = await services.portfolio.searchComponents('acme', { purl: 'pkg:npm/lib-1234@1.0.1234' });
      assert.deepEqual(
        byPurl.map((h) => [h.revision, h.component.name]),
        [
          [2, 'lib-1234'],
          [1, 'lib-1234'],
        ],
      );
      const otherwise = await services.portfolio.searchComponents('globex', { purl: 'pkg:npm/%40scope/lib-2@1.0.2' });
      assert.deepEqual(
        otherwise.map((h) => h.component.name),
        ['@scope/lib-2'],
      );
    } finally {
      await services.close();
    }
  });
});
