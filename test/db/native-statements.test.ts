import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { productsRepo } from '../../src/products/products.repo.js';
import { useHarness } from '../helpers/app.js';
import { TEST_BACKEND } from '../helpers/db.js';

// Compiled point reads on SQLite bypass Kysely when no transaction is open (src/db/native-statements.ts).
// They must never see rows of a transaction that is still open, nor rows it rolls back.
describe('reads beside an open transaction', () => {
  const harness = useHarness();

  it('wait for the transaction and never see its rolled-back rows', async () => {
    const h = harness();
    const t = await h.tenant('nr-a', ['products:read']);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const insertedSignal = new Promise<void>((r) => (inserted = r));
    const now = new Date().toISOString();
    const writer = h.database.transaction(async (trx) => {
      await productsRepo.insert(trx, {
        id: randomUUID(),
        org_id: t.orgId,
        sku: 'GHOST',
        name: 'Ghost',
        gtin: null,
        firmware_version: null,
        end_of_support: null,
        status: 'active',
        sbom_status: 'none',
        sbom_components: 0,
        created_at: now,
        updated_at: now,
      });
      inserted();
      await gate;
      throw new Error('roll back');
    });
    await insertedSignal;
    let readDone = false;
    const reader = productsRepo.findBySku(h.database.db, t.orgId, 'GHOST').then((row) => {
      readDone = true;
      return row;
    });
    await new Promise((r) => setTimeout(r, 20));
    if (TEST_BACKEND === 'sqlite') assert.equal(readDone, false, 'the read waits while the transaction is open');
    release();
    await assert.rejects(writer, /roll back/);
    assert.equal(await reader, undefined);
    assert.equal(await productsRepo.findBySku(h.database.db, t.orgId, 'GHOST'), undefined);
  });

  it('see committed rows at once', async () => {
    const h = harness();
    await h.tenant('nr-b', ['products:read']);
    await h.products.addProduct('nr-b', 'REAL', { name: 'Real' });
    const org = await h.orgs.requireOrg('nr-b');
    assert.equal((await productsRepo.findBySku(h.database.db, org.id, 'REAL'))?.name, 'Real');
  });
});
