import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { componentsRepo } from '../../../src/sbom/store/components.repo.js';
import { readSbomBytes } from '../../../src/sbom/parse/read-sbom.js';
import { createServices } from '../../../src/services.js';
import { suiteTeardown } from '../../helpers/app.js';
import { createTestDatabase, TEST_BACKEND } from '../../helpers/db.js';
import { cycloneDx16 } from '../sbom-fixtures.js';

// componentsRepo.findOrInsert: a read document's components at some positions, each found by
// content in its organisation or stored, in one go; what is stored is what the document says.
describe(`component rows found or stored (${TEST_BACKEND})`, () => {
  const teardown = suiteTeardown();

  it('stores each distinct component once per organisation, as the document says, and finds it again at any position', async () => {
    const test = await createTestDatabase();
    teardown.after(() => test.drop());
    const { database } = test;
    const services = createServices({ database });
    teardown.after(() => services.close());
    const mine = await services.orgs.createOrg({ slug: 'rows-mine' });
    const theirs = await services.orgs.createOrg({ slug: 'rows-theirs' });
    const [mineNo, theirNo] = [
      await componentsRepo.orgNumber(database.db, mine.id),
      await componentsRepo.orgNumber(database.db, theirs.id),
    ];
    assert.notEqual(mineNo, theirNo);

    const doc = cycloneDx16(5);
    // A component with no name, version or licences; one whose purl names another package; one
    // listed twice.
    doc.components[1] = { type: 'library', name: '', purl: 'pkg:generic/blank' };
    doc.components[3] = { ...doc.components[3], name: '@acme/lib-3', purl: 'pkg:npm/%40acme/lib-3@1.0.3' };
    doc.components.push({ ...doc.components[0], hashes: [{ alg: 'SHA-256', content: 'b'.repeat(64) }] });
    const reading = readSbomBytes(Buffer.from(JSON.stringify(doc)));
    const everyone = [0, 1, 2, 3, 4, 5];

    const ids = [...(await componentsRepo.findOrInsert(database, mineNo, reading, everyone))];
    assert.equal(new Set(ids).size, 5, 'five distinct components');
    assert.equal(ids[5], ids[0], 'the one listed twice is stored once');
    const stored = await componentsRepo.byIds(database.db, mine.id, ids);
    assert.deepEqual(
      { ...stored.get(ids[1]!), id: 0 },
      { id: 0, name: '', version: null, purl: 'pkg:generic/blank', type: 'library', licenses: null, ref: null, cpes: null },
    );
    assert.deepEqual(
      { ...stored.get(ids[0]!), id: 0 },
      {
        id: 0,
        name: 'lib-0',
        version: '1.0.0',
        purl: 'pkg:npm/lib-0@1.0.0',
        type: 'library',
        licenses: '["MIT"]',
        ref: 'pkg:npm/lib-0@1.0.0',
        cpes: null,
      },
    );
    const flags = await database.db.selectFrom('components').select(['id', 'purl_name_differs']).where('id', 'in', ids).execute();
    assert.deepEqual(
      flags
        .filter((f) => Number(f.purl_name_differs) === 1)
        .map((f) => Number(f.id))
        .sort((a, b) => a - b),
      [ids[1]!, ids[3]!].sort((a, b) => a - b),
      'only the components their purl names otherwise (the nameless one, @acme/lib-3) are flagged',
    );

    // Some positions only, in another order of calls: the same ids, nothing stored again.
    assert.deepEqual([...(await componentsRepo.findOrInsert(database, mineNo, reading, [4, 2]))], [ids[4], ids[2]]);
    // Another organisation: rows of its own, and none of them readable as ours.
    const their = [...(await componentsRepo.findOrInsert(database, theirNo, reading, everyone))];
    assert.ok(their.every((id) => !ids.includes(id)));
    assert.equal((await componentsRepo.byIds(database.db, mine.id, their)).size, 0);
    const count = await database.db
      .selectFrom('components')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 10);
  });
});
