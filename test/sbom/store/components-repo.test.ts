import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { componentsRepo, KEY_LOOKUP_CHUNK } from '../../../src/sbom/store/components.repo.js';
import { createServices } from '../../../src/services.js';
import { suiteTeardown } from '../../helpers/app.js';
import { createTestDatabase } from '../../helpers/db.js';

// componentsRepo.findKeys: the lookup behind content addressing, a comma-separated list of keys
// as one parameter, answered by position (json_each on SQLite, unnest with ordinality on
// PostgreSQL). Every stored key is found at each of its positions, at the offset asked, and
// nothing of another organisation's.
describe('component key lookups', () => {
  const teardown = suiteTeardown();

  it('finds every stored key of the organisation at its positions, and no other', async () => {
    const test = await createTestDatabase();
    teardown.after(() => test.drop());
    const { database } = test;
    const services = createServices({ database });
    const mine = await services.orgs.createOrg({ slug: 'keys-mine' });
    const theirs = await services.orgs.createOrg({ slug: 'keys-theirs' });
    const count = KEY_LOOKUP_CHUNK + 7;
    const key = (i: number) => `k${String(i).padStart(21, '0')}`;
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        key: key(i),
        fields: { name: `c${i}`, version: null, purl: null, type: null, licenses: null, ref: null },
      }));
    const storedMine = await services.orgs.requireOrg(mine.slug);
    const storedTheirs = await services.orgs.requireOrg(theirs.slug);
    await database.transaction((trx) => componentsRepo.insert(database, trx, storedMine.id, rows(count)));
    // The other organisation stores keys beyond ours: they must not be found for us.
    await database.transaction((trx) => componentsRepo.insert(database, trx, storedTheirs.id, rows(count + 50).slice(count)));
    // Asked: every key of both organisations, then the first ten again (a document may list a component twice).
    const asked = [...Array.from({ length: count + 50 }, (_, i) => key(i)), ...Array.from({ length: 10 }, (_, i) => key(i))];
    const offset = 3;
    const ids = new Float64Array(asked.length + offset).fill(-1);
    await componentsRepo.findKeys(database.db, database.dialect, storedMine.id, asked.join(','), ids, offset);
    const positions = [...ids.subarray(offset)];
    assert.deepEqual([...ids.subarray(0, offset)], [-1, -1, -1], 'nothing written before the offset');
    assert.ok(
      positions.slice(0, count).every((id) => id > 0),
      'each stored key found',
    );
    assert.equal(new Set(positions.slice(0, count)).size, count, 'one id per key');
    assert.ok(
      positions.slice(count, count + 50).every((id) => id === -1),
      "the other organisation's keys are not found",
    );
    assert.deepEqual(positions.slice(count + 50), positions.slice(0, 10), 'a key listed twice is found at both positions');
    const theirIds = new Float64Array(asked.length);
    await componentsRepo.findKeys(database.db, database.dialect, storedTheirs.id, asked.join(','), theirIds);
    assert.equal(theirIds.filter((id) => id > 0).length, 50);
    const none = new Float64Array(1).fill(-1);
    await componentsRepo.findKeys(database.db, database.dialect, storedMine.id, '', none);
    assert.equal(none[0], -1, 'an empty list finds nothing and writes nothing');
  });
});
