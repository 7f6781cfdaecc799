import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/index.js';
import { frozen002 } from '../../src/db/migrations/002-shared-components.js';
import { frozen014 } from '../../src/db/migrations/014-compact-components.js';
import { frozen016 } from '../../src/db/migrations/016-name-prefixed-keys.js';
import { createServices } from '../../src/services.js';
import { componentsRepo } from '../../src/sbom/store/components.repo.js';
import { fieldsAt, KEY_STRIDE, readSbomBytes } from '../../src/sbom/parse/read-sbom.js';
import { componentKey, decodeKeys, purlName, purlNameDiffers, storedComponentText } from '../../src/sbom/parse/component-rows.js';
import { encodeIds } from '../../src/sbom/store/id-list.js';
import { allowDirectWrites, databaseMigratedTo, TEST_BACKEND } from '../helpers/db.js';
import { legacyRevision } from '../helpers/legacy-rows.js';
import { cycloneDx16 } from '../sbom/sbom-fixtures.js';

// A migrator of its own writes outside Database.transaction.
allowDirectWrites();

// Migration 014 moves every stored component into the compact table (an organisation's number,
// the key's 16 bytes, one unique index by name and key, a partial index of the purls a
// component's name does not give). Rows keep their ids, which revisions list; what it computes
// must be what the live code computes, or an upload afterwards would store the same components
// again.

describe('migration 014 agrees with the live SBOM code', () => {
  const purls = [
    'pkg:npm/%40babel/core@7.1.0',
    'pkg:npm/@babel/core@7.1.0',
    'pkg:maven/org.apache/log4j-core@2.14.1?type=jar#sub/path',
    'pkg:deb/debian/openssl@1.1.1n-0+deb11u4?arch=amd64',
    'pkg:generic/zlib',
    'pkg:npm/%E2%9C%93-tick@1',
    'pkg:npm/bad%ZZ@1',
    'not a purl',
    'pkg:github/a/b@v1?x=@/y',
    // The live purlName reads positions (the frozen one a regular expression and slices): the
    // edges of those positions.
    'pkg:x/a/b@1#frag?q=/c@2',
    'pkg:x/a/b@1#f/g?q',
    'pkg:x/a/b@1?q=1#f/g@3',
    '?pkg:x/a',
    '#/',
    '/',
    '/a@',
    '',
    'pkg:x/@',
    'pkg:x/a@b/c',
    'pkg:x/a/%',
    'pkg:x/a/%41%42@1',
    'a@b/@c',
  ];
  it('reads the same name from a purl, and flags the same components', () => {
    for (const purl of purls) {
      assert.equal(frozen014.purlName(purl), purlName(purl), purl);
      for (const name of ['core', 'log4j-core', 'openssl', 'zlib', '✓-tick', 'bad%ZZ', 'x'])
        assert.equal(frozen014.purlNameDiffers(name, purl), purlNameDiffers(name, purl), `${name} ${purl}`);
    }
    assert.equal(purlName('pkg:npm/%40babel/core@7.1.0'), 'core');
    assert.equal(purlName('pkg:maven/org.apache/log4j-core@2.14.1?type=jar#sub/path'), 'log4j-core');
    assert.equal(purlName('pkg:generic/zlib'), 'zlib');
    assert.equal(purlName('not a purl'), null);
    assert.equal(purlNameDiffers('x', null), 0);
  });

  it('turns a stored key into the bytes that 016 re-keys into those the ingest stores', () => {
    const texts = [
      'a\u0000b',
      storedComponentText({ name: 'Grüße ✓', version: '2', purl: null, type: null, licenses: null, ref: 'x' }),
      '',
    ];
    for (const text of texts) {
      const column = Buffer.from(`${componentKey(text)},`, 'latin1');
      const name = text.split('\u0000')[0]!;
      assert.deepEqual(
        Buffer.from(decodeKeys(column, KEY_STRIDE, [0])),
        frozen016.rekeyed(name, frozen014.keyBytes(frozen002.componentKey(text))),
        text,
      );
    }
  });
});

describe(`migration 014 on a database that holds components (${TEST_BACKEND})`, () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('moves every component with its id, its organisation and its key; uploads afterwards reuse them, search finds them', async () => {
    const { database, remove } = await databaseMigratedTo('013-change-notices');
    cleanups.push(remove);

    // Two organisations, a product and a revision each, with components as 002 stored them.
    const legacy = database.db as unknown as Kysely<any>;
    const doc = cycloneDx16(6, { version: '1.0.0' });
    // One component named otherwise than its purl names it: found through the partial index.
    doc.components[2] = { ...doc.components[2], name: '@scope/lib-2', purl: 'pkg:npm/%40scope/lib-2@1.0.2' };
    const reading = readSbomBytes(Buffer.from(JSON.stringify(doc)));
    const fields = Array.from({ length: reading.count }, (_, i) => fieldsAt(reading, i));
    const orgs: Array<{ id: string; slug: string; productId: string; sbomId: string; ids: number[] }> = [];
    let nextId = 40;
    for (const slug of ['acme', 'globex']) {
      const org = { ...(await legacyRevision(legacy, slug, reading.count)), slug, ids: [] as number[] };
      // The columns of that time: no `cpes` yet (migration 018).
      for (const { cpes: _cpes, ...f } of fields) {
        nextId += 3;
        const id = nextId;
        org.ids.push(id);
        await legacy
          .insertInto('components')
          .values({ id, org_id: org.id, key: frozen002.componentKey(storedComponentText(f as never)), ...f })
          .execute();
      }
      await legacy
        .insertInto('sbom_members')
        .values({ sbom_id: org.sbomId, component_ids: encodeIds(org.ids) })
        .execute();
      orgs.push(org);
    }

    assert.ok((await migrateToLatest(database)).includes('014-compact-components'));
    const numbers = await database.db.selectFrom('organisations').select(['id', 'number']).execute();
    assert.equal(new Set(numbers.map((n) => Number(n.number))).size, 2, 'each organisation has its own number');
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
      const rows = await database.db
        .selectFrom('components')
        .select(['id', 'key', 'purl_name_differs'])
        .where('id', 'in', org.ids)
        .orderBy('id')
        .execute();
      rows.forEach((row, i) => {
        assert.deepEqual(Buffer.from(row.key), Buffer.from(decodeKeys(reading.keys, KEY_STRIDE, [i])), `key of ${i}`);
        assert.equal(Number(row.purl_name_differs), i === 2 ? 1 : 0, `flag of ${i}`);
      });
    }

    // The live ingest finds them: a new revision of the same components stores none; a new
    // component gets an id after the largest moved one; a new organisation gets a new number.
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
      const again = await services.sbom.ingestSbom({
        orgId: orgs[0]!.id,
        sku: 'GW-1',
        bytes: Buffer.from(JSON.stringify(doc)),
        actor: 'cli',
      });
      assert.equal(await count(), before, 'nothing stored twice');
      assert.deepEqual(
        (await componentsRepo.ofRevision(database.db, orgs[0]!.id, again.sbom.sbom_id)).map((c) => c.id),
        orgs[0]!.ids,
      );
      const grown = { ...doc, components: [...doc.components, { ...doc.components[0], name: 'lib-new', purl: 'pkg:npm/lib-new@1.0.0' }] };
      const third = await services.sbom.ingestSbom({
        orgId: orgs[0]!.id,
        sku: 'GW-1',
        bytes: Buffer.from(JSON.stringify(grown)),
        actor: 'cli',
      });
      const newest = (await componentsRepo.ofRevision(database.db, orgs[0]!.id, third.sbom.sbom_id)).at(-1)!;
      assert.ok(newest.id > Math.max(...orgs.flatMap((o) => o.ids)), `new id ${newest.id} after the moved ones`);
      const other = await services.orgs.createOrg({ slug: 'initech' });
      const otherNumber = await componentsRepo.orgNumber(database.db, other.id);
      assert.ok(!numbers.some((n) => Number(n.number) === otherNumber));

      const byPurl = await services.portfolio.searchComponents('acme', { purl: 'pkg:npm/%40scope/lib-2@1.0.2' });
      assert.deepEqual(
        byPurl.map((h) => [h.revision, h.component.name]),
        [
          [3, '@scope/lib-2'],
          [2, '@scope/lib-2'],
          [1, '@scope/lib-2'],
        ],
      );
      const named = await services.portfolio.searchComponents('globex', { purl: doc.components[1].purl });
      assert.deepEqual(
        named.map((h) => [h.sku, h.revision, h.component.purl]),
        [['GW-1', 1, doc.components[1].purl]],
      );
    } finally {
      await services.close();
    }
  });
});
