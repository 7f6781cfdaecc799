import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ARRAY_LOOKUP_CHUNK, componentsRepo, LOOKUP_CHUNK } from '../../src/sbom/components.repo.js';
import { createServices } from '../../src/services.js';
import { suiteTeardown } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';

// componentsRepo.findIds: the lookup behind content addressing, in chunks (IN lists on SQLite,
// one array parameter on PostgreSQL). Every stored key is found, across chunk boundaries, and
// nothing of another organisation's.
describe('component key lookups', () => {
  const teardown = suiteTeardown();

  it('finds every stored key of the organisation across chunks, and no other', async () => {
    const test = await createTestDatabase();
    teardown.after(() => test.drop());
    const { database } = test;
    const services = createServices({ database });
    const mine = await services.orgs.createOrg({ slug: 'keys-mine' });
    const theirs = await services.orgs.createOrg({ slug: 'keys-theirs' });
    const count = Math.max(ARRAY_LOOKUP_CHUNK, LOOKUP_CHUNK) * 2 + 7;
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
    const asked = Array.from({ length: count + 50 }, (_, i) => key(i));
    const found = await componentsRepo.findIds(database.db, storedMine.id, asked, undefined, database.dialect);
    assert.equal(found.size, count);
    assert.ok(asked.slice(0, count).every((k) => found.has(k)));
    assert.equal(new Set(found.values()).size, count, 'one id per key');
    const theirsFound = await componentsRepo.findIds(database.db, storedTheirs.id, asked, undefined, database.dialect);
    assert.equal(theirsFound.size, 50);
  });
});
