import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { componentsRepo } from '../../src/sbom/components.repo.js';
import { KEY_LOOKUP_CHUNK } from '../../src/sbom/components.repo.js';
import { buildHarness, suiteTeardown } from '../helpers/app.js';
import { cycloneDx16 } from './sbom-fixtures.js';

// storeComponents: the ids of a document's components, in document order, across several
// lookups of KEY_LOOKUP_CHUNK keys: components already stored, new ones, and one component
// listed twice (equal once normalised) on either side of a chunk boundary.
describe('storing a revision’s components across lookup chunks', () => {
  const teardown = suiteTeardown();

  it('each position gets its own component, stored once, on a second revision that mixes known and new', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    await h.products.addProduct('acme', 'BIG-1', { name: 'big' });
    const known = KEY_LOOKUP_CHUNK + 500;
    const first = cycloneDx16(known);
    await h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'BIG-1', bytes: Buffer.from(JSON.stringify(first)), actor: 'test' });

    const second = cycloneDx16(known + KEY_LOOKUP_CHUNK);
    // Past the second chunk boundary: component 10 again, told apart only by a field the
    // normalised component does not keep (so the schema's uniqueItems lets it through).
    const twin = { ...second.components[10], hashes: [{ alg: 'SHA-256', content: 'a'.repeat(64) }] };
    second.components.splice(2 * KEY_LOOKUP_CHUNK + 3, 0, twin);
    const stored = await h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'BIG-1', bytes: Buffer.from(JSON.stringify(second)), actor: 'test' });
    assert.equal(stored.sbom.components, second.components.length);

    const rows = await componentsRepo.ofRevision(h.database.db, acme.orgId, stored.sbom.sbom_id);
    assert.deepEqual(
      rows.map((c) => [c.name, c.version, c.ref]),
      second.components.map((c: { name: string; version: string; 'bom-ref': string }) => [c.name, c.version, c['bom-ref']]),
    );
    const firstRows = await componentsRepo.ofRevision(
      h.database.db,
      acme.orgId,
      (await h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'BIG-1', bytes: Buffer.from(JSON.stringify(first)), actor: 'test' })).sbom.sbom_id,
    );
    assert.deepEqual(
      rows.slice(0, known).map((c) => c.id),
      firstRows.map((c) => c.id),
      'the known components keep their ids',
    );
    assert.equal(rows[2 * KEY_LOOKUP_CHUNK + 3]!.id, rows[10]!.id, 'the twin is the same stored component');
    const distinct = await h.database.db
      .selectFrom('components')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', acme.orgId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(distinct.n), known + KEY_LOOKUP_CHUNK, 'each distinct component stored once');
  });
});
