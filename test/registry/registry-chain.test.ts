import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { ChainVerifier, GENESIS_HASH, hashEntry } from '../../src/registry/registry-chain.js';
import { appendRegistryEntry } from '../../src/registry/append-entry.js';
import { listRegistry, verifyRegistry } from '../../src/registry/registry.service.js';
import { useHarness } from '../helpers/app.js';
import { allowDirectWrites } from '../helpers/db.js';

// It forges registry entries directly, outside Database.transaction.
allowDirectWrites();

function chain(n: number) {
  const entries = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const base = {
      org_id: 'o',
      seq,
      at: `2026-01-01T00:00:0${seq}.000Z`,
      actor: 'cli',
      action: 'x',
      subject: `s${seq}`,
      details: '{"n":1}',
      prev_hash: prev,
    };
    const hash = hashEntry(base);
    entries.push({ ...base, hash });
    prev = hash;
  }
  return entries;
}

function verify(entries: ReturnType<typeof chain>, head = { seq: entries.length, hash: entries.at(-1)?.hash ?? GENESIS_HASH }) {
  const v = new ChainVerifier();
  for (const e of entries) v.push(e);
  return v.finish(head);
}

describe('registry hash chain (pure)', () => {
  it('an untouched chain verifies', () => {
    assert.deepEqual(verify(chain(5)), { ok: true, entries: 5 });
  });

  it('the hash covers the previous hash and every field', () => {
    const [e] = chain(1);
    for (const field of ['at', 'actor', 'action', 'subject', 'prev_hash', 'org_id'] as const) {
      assert.notEqual(hashEntry({ ...e!, [field]: `${e![field]}x` }), e!.hash, field);
    }
    assert.notEqual(hashEntry({ ...e!, details: '{"n":2}' }), e!.hash);
    assert.notEqual(hashEntry({ ...e!, seq: 2 }), e!.hash);
  });

  it('names the first broken entry when one is edited, removed or reordered', () => {
    const edited = chain(5);
    edited[2] = { ...edited[2]!, subject: 'tampered' };
    assert.deepEqual(verify(edited, { seq: 5, hash: edited[4]!.hash }), { ok: false, entries: 5, first_broken: 3 });

    const removed = chain(5);
    const head = { seq: 5, hash: removed[4]!.hash };
    removed.splice(1, 1);
    assert.equal((verify(removed, head) as { first_broken: number }).first_broken, 2);

    const swapped = chain(4);
    [swapped[1], swapped[2]] = [swapped[2]!, swapped[1]!];
    assert.equal((verify(swapped, { seq: 4, hash: swapped[3]!.hash }) as { first_broken: number }).first_broken, 2);
  });

  it('catches a deleted tail through the recorded head', () => {
    const entries = chain(5);
    const head = { seq: 5, hash: entries[4]!.hash };
    assert.deepEqual(verify(entries.slice(0, 4), head), { ok: false, entries: 4, first_broken: 5 });
  });
});

describe('registry on the database', () => {
  const harness = useHarness();

  it('appends entries in sequence per organisation and verifies them', async () => {
    const h = harness();
    const a = await h.tenant('reg-a', ['products:read']);
    const b = await h.tenant('reg-b', ['products:read']);
    await h.products.addProduct('reg-a', 'P1', { name: 'P1' });
    const entries = [];
    for await (const e of listRegistry(h.database, a.orgId)) entries.push(e);
    assert.deepEqual(
      entries.map((e) => e.action),
      ['org.created', 'key.created', 'product.added'],
    );
    assert.deepEqual(
      entries.map((e) => e.seq),
      [1, 2, 3],
    );
    assert.equal(entries[0]!.prev_hash, GENESIS_HASH);
    assert.equal(entries[1]!.prev_hash, entries[0]!.hash);
    const keyEntry = JSON.parse(entries[1]!.details);
    assert.deepEqual(Object.keys(keyEntry).sort(), ['expires_at', 'prefix', 'scopes']);
    assert.equal(JSON.stringify(entries).includes(a.key), false, 'the secret is never in the registry');
    assert.deepEqual(await verifyRegistry(h.database, a.orgId), { ok: true, entries: 3 });
    assert.deepEqual(await verifyRegistry(h.database, b.orgId), { ok: true, entries: 2 });
  });

  it('concurrent appends never fork the chain', async () => {
    const h = harness();
    const org = await h.tenant('reg-c', ['products:read']);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        h.database.transaction((trx) =>
          appendRegistryEntry(trx, org.orgId, { actor: 'test', action: 'test.event', subject: `n${i}` }, new Date().toISOString()),
        ),
      ),
    );
    const result = await verifyRegistry(h.database, org.orgId);
    assert.deepEqual(result, { ok: true, entries: 102 });
  });

  it('detects an entry edited in the database', async () => {
    const h = harness();
    const org = await h.tenant('reg-d', ['products:read']);
    await h.products.addProduct('reg-d', 'P1', { name: 'P1' });
    await sql`update registry_entries set subject = 'forged' where org_id = ${org.orgId} and seq = 2`.execute(h.database.db);
    assert.deepEqual(await verifyRegistry(h.database, org.orgId), { ok: false, entries: 3, first_broken: 2 });
  });
});
