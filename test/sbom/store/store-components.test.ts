import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { componentsRepo } from '../../../src/sbom/store/components.repo.js';
import { KeyTable, KnownComponents } from '../../../src/sbom/store/known-components.js';
import {
  KEY_STRIDE,
  READING_SLICES,
  type ReadingSlice,
  readSbomBytes,
  readSbomSlices,
  type SbomReading,
} from '../../../src/sbom/parse/read-sbom.js';
import { KEY_SLICE, SLICES_AT_ONCE, storeInSlices } from '../../../src/sbom/store/store-components.js';
import { AppError } from '../../../src/errors.js';
import { buildHarness, suiteTeardown } from '../../helpers/app.js';
import { cycloneDx16, cycloneDx16ByName } from '../sbom-fixtures.js';

const all = (n: number) => Array.from({ length: n }, (_, i) => i);
const CHUNK = 2_000;

/** Counts the components each call of componentsRepo.findOrInsert is given, while `run` runs. */
async function countingFinds<T>(run: (finds: number[]) => Promise<T>): Promise<T> {
  const finds: number[] = [];
  const findOrInsert = componentsRepo.findOrInsert;
  componentsRepo.findOrInsert = (database, org, reading, positions) => {
    finds.push(positions.length);
    return findOrInsert(database, org, reading, positions);
  };
  try {
    return await run(finds);
  } finally {
    componentsRepo.findOrInsert = findOrInsert;
  }
}

/** A document read whole, stored as one slice (storeInSlices): its components' ids in document order. */
async function storeWhole(
  database: Parameters<typeof storeInSlices>[0],
  org: Parameters<typeof storeInSlices>[1],
  reading: SbomReading,
  known: KnownComponents,
): Promise<Float64Array> {
  const storing = storeInSlices(database, org, known);
  storing.add({ ...reading, first: 0 });
  return storing.finish(reading.count);
}

// Storing: the ids of a document's components, in document order: components already
// stored, new ones, and one component listed twice (equal once normalised), far apart.
describe('storing a revision’s components', () => {
  const teardown = suiteTeardown();

  it('each position gets its own component, stored once, on a second revision that mixes known and new', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    await h.products.addProduct('acme', 'BIG-1', { name: 'big' });
    const known = CHUNK + 500;
    const first = cycloneDx16(known);
    await h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'BIG-1', bytes: Buffer.from(JSON.stringify(first)), actor: 'test' });

    const second = cycloneDx16(known + CHUNK);
    // Past the second chunk boundary: component 10 again, told apart only by a field the
    // normalised component does not keep (so the schema's uniqueItems lets it through).
    const twin = { ...second.components[10], hashes: [{ alg: 'SHA-256', content: 'a'.repeat(64) }] };
    second.components.splice(2 * CHUNK + 3, 0, twin);
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
    assert.equal(rows[2 * CHUNK + 3]!.id, rows[10]!.id, 'the twin is the same stored component');
    const distinct = await h.database.db
      .selectFrom('components')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org', '=', await componentsRepo.orgNumber(h.database.db, acme.orgId))
      .executeTakeFirstOrThrow();
    assert.equal(Number(distinct.n), known + CHUNK, 'each distinct component stored once');
  });

  it('remembers the ids it stored or found: a revision of known components needs no lookup, a changed one looks up only what changed', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    const globex = await h.tenant('globex', ['products:write']);
    await h.products.addProduct('acme', 'GW-1', { name: 'gateway' });
    await h.products.addProduct('globex', 'GW-1', { name: 'gateway' });
    await countingFinds(async (finds) => {
      const ingest = (orgId: string, doc: unknown) =>
        h.sbom.ingestSbom({ orgId, sku: 'GW-1', bytes: Buffer.from(JSON.stringify(doc)), actor: 'test' });
      const doc = cycloneDx16(READING_SLICES.first + 1_000);
      const first = await ingest(acme.orgId, doc);
      assert.deepEqual(
        finds.sort((a, b) => b - a),
        [READING_SLICES.first, 1_000],
        'the first upload finds or stores its components a slice at a time, as they are read',
      );

      finds.length = 0;
      const again = await ingest(acme.orgId, { ...doc, serialNumber: 'urn:uuid:6f1c3b9e-0d2a-4c47-9d7e-1a2b3c4d5e6f' });
      assert.deepEqual(finds, [], 'a revision of known components looks nothing up');

      finds.length = 0;
      const changed = { ...doc, serialNumber: 'urn:uuid:7a2d4c0f-1e3b-4d58-8e8f-2b3c4d5e6f70', components: doc.components.slice() };
      changed.components[1_500] = { ...changed.components[1_500], version: '9.9.9' };
      const third = await ingest(acme.orgId, changed);
      assert.deepEqual(finds, [1], 'only the changed component is looked up');

      // Another organisation listing the same components gets rows of its own.
      const theirs = await ingest(globex.orgId, doc);
      const ofRevision = (orgId: string, sbomId: string) => componentsRepo.ofRevision(h.database.db, orgId, sbomId);
      const [mine, mineAgain, mineChanged, their] = await Promise.all([
        ofRevision(acme.orgId, first.sbom.sbom_id),
        ofRevision(acme.orgId, again.sbom.sbom_id),
        ofRevision(acme.orgId, third.sbom.sbom_id),
        ofRevision(globex.orgId, theirs.sbom.sbom_id),
      ]);
      assert.deepEqual(mineAgain, mine);
      assert.equal(mineChanged[1_500]!.version, '9.9.9');
      assert.deepEqual(
        mineChanged.filter((_, i) => i !== 1_500),
        mine.filter((_, i) => i !== 1_500),
      );
      assert.deepEqual(
        their.map((c) => [c.name, c.version]),
        mine.map((c) => [c.name, c.version]),
      );
      const acmeIds = new Set(mine.map((c) => c.id));
      assert.ok(
        their.every((c) => !acmeIds.has(c.id)),
        'no id of the other organisation',
      );
      const owners = await h.database.db
        .selectFrom('components')
        .select('org')
        .distinct()
        .where(
          'id',
          'in',
          their.map((c) => c.id),
        )
        .execute();
      assert.deepEqual(
        owners.map((o) => Number(o.org)),
        [await componentsRepo.orgNumber(h.database.db, globex.orgId)],
      );
      // Nor can the other organisation read them.
      assert.deepEqual(await componentsRepo.ofRevision(h.database.db, acme.orgId, theirs.sbom.sbom_id), []);
      assert.equal((await componentsRepo.byIds(h.database.db, acme.orgId, [...their.map((c) => c.id)])).size, 0);
    });
  });

  it('remembers a document of more than one slice of keys, and then looks up only the components it does not know', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    const org = { id: acme.orgId, number: await componentsRepo.orgNumber(h.database.db, acme.orgId) };
    const known = new KnownComponents(24 << 20);
    const count = KEY_SLICE + 1_500;
    const doc = cycloneDx16(count);
    const reading = readSbomBytes(Buffer.from(JSON.stringify(doc)));
    const first = await storeWhole(h.database, org, reading, known);
    assert.ok(first.every((id) => id > 0));
    assert.equal(known.size, count);

    await countingFinds(async (finds) => {
      // Not remembered (another server process stored them): found in the database, the same ids.
      const fresh = new KnownComponents(24 << 20);
      assert.deepEqual([...(await storeWhole(h.database, org, reading, fresh))], [...first]);
      assert.equal(fresh.size, count);
      assert.deepEqual(finds, [count]);

      // Every other one remembered: the others found by their scattered positions.
      const half = new KnownComponents(24 << 20);
      const even = all(count).filter((i) => i % 2 === 0);
      half.reserve(acme.orgId, even.length);
      half.remember(acme.orgId, reading.keys, KEY_STRIDE, first, even);
      finds.length = 0;
      assert.deepEqual([...(await storeWhole(h.database, org, reading, half))], [...first]);
      assert.deepEqual(finds, [count / 2], 'only the odd positions, found (none inserted)');
      assert.equal(half.size, count);

      finds.length = 0;
      assert.deepEqual([...(await storeWhole(h.database, org, reading, known))], [...first]);
      assert.deepEqual(finds, [], 'a revision of known components looks nothing up');

      // Every 1,000th component changed: stored, remembered.
      const changed = {
        ...doc,
        components: doc.components.map((c: { version: string }, i: number) => (i % 1_000 === 7 ? { ...c, version: '9.9.9' } : c)),
      };
      const changedReading = readSbomBytes(Buffer.from(JSON.stringify(changed)));
      finds.length = 0;
      const changedIds = await storeWhole(h.database, org, changedReading, known);
      const positions = all(count).filter((i) => i % 1_000 === 7);
      assert.deepEqual(finds, [positions.length], 'the changed components alone');
      for (let i = 0; i < count; i++) {
        if (i % 1_000 === 7) assert.ok(changedIds[i]! > 0 && !first.includes(changedIds[i]!), `component ${i} is new`);
        else assert.equal(changedIds[i], first[i]);
      }
      assert.equal(known.size, count + positions.length);
    });
  });
});

// storeInSlices: the slices of a document stored as they arrive, a bounded number at once, and
// the whole document's ids in order at the end; a failure ends it.
describe('storing a document’s components slice by slice', () => {
  const teardown = suiteTeardown();

  /** The document's slices (of 3, 6, 8, 8, … components) and its reading whole. */
  function slicesOf(count: number) {
    const bytes = Buffer.from(JSON.stringify(cycloneDx16ByName(count)));
    const slices: ReadingSlice[] = [];
    readSbomSlices(bytes, (slice) => slices.push(slice), { first: 3, largest: 8 });
    return { slices, whole: readSbomBytes(bytes) };
  }

  /** componentsRepo.findOrInsert held at a gate per call until `open(k)`, while `run` runs. */
  async function gatedFinds<T>(run: (calls: Array<{ first: number; open: () => void }>, running: () => number) => Promise<T>): Promise<T> {
    const findOrInsert = componentsRepo.findOrInsert;
    const calls: Array<{ first: number; open: () => void }> = [];
    let inFlight = 0;
    componentsRepo.findOrInsert = async (database, org, reading, positions) => {
      inFlight++;
      try {
        await new Promise<void>((open) => calls.push({ first: (reading as ReadingSlice).first, open }));
        return await findOrInsert(database, org, reading, positions);
      } finally {
        inFlight--;
      }
    };
    try {
      return await run(calls, () => inFlight);
    } finally {
      componentsRepo.findOrInsert = findOrInsert;
    }
  }

  const until = async (condition: () => boolean) => {
    for (let i = 0; i < 2_000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(condition());
  };

  it(`stores ${SLICES_AT_ONCE} slices at once, the next as one ends, and gives every id in document order`, async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    const org = { id: acme.orgId, number: await componentsRepo.orgNumber(h.database.db, acme.orgId) };
    const { slices, whole } = slicesOf(25);
    assert.equal(slices.length, 4);
    const ids = await gatedFinds(async (calls, running) => {
      const storing = storeInSlices(h.database, org, new KnownComponents(1 << 20));
      for (const slice of slices) storing.add(slice);
      await until(() => calls.length === SLICES_AT_ONCE);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(running(), SLICES_AT_ONCE, 'no more than that many at once');
      assert.deepEqual(
        calls.map((c) => c.first),
        [0, 3],
      );
      // The second ends first: the third starts, the first still runs.
      calls[1]!.open();
      await until(() => calls.length === 3);
      assert.equal(calls[2]!.first, 9);
      calls[0]!.open();
      calls[2]!.open();
      await until(() => calls.length === 4);
      calls[3]!.open();
      return storing.finish(25);
    });
    assert.ok(ids.every((id) => id > 0));
    // The same ids as the document stored whole (every component found).
    assert.deepEqual([...(await storeWhole(h.database, org, whole, new KnownComponents(1 << 20)))], [...ids]);
  });

  it('remembers the whole document at once: an organisation reaching the bound partway keeps all of it, not its last slices', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    const org = { id: acme.orgId, number: await componentsRepo.orgNumber(h.database.db, acme.orgId) };
    // Room for 32 keys (64 slots, at most half full): 20 held, then a document of 25 in four slices.
    const known = new KnownComponents(KeyTable.bytesFor(32));
    const before = readSbomBytes(Buffer.from(JSON.stringify(cycloneDx16(20))));
    await storeWhole(h.database, org, before, known);
    assert.equal(known.size, 20);
    const { slices, whole } = slicesOf(25);
    assert.equal(slices.length, 4);
    const storing = storeInSlices(h.database, org, known);
    for (const slice of slices) storing.add(slice);
    const ids = await storing.finish(25);
    // 45 keys would outgrow the bound: the organisation starts over with the document's 25.
    assert.equal(known.size, 25);
    const found = new Float64Array(25);
    assert.equal(known.find(acme.orgId, whole.keys, KEY_STRIDE, found, 0, 25), 25);
    assert.deepEqual([...found], [...ids]);
  });

  it('a slice that fails fails the document: the slices not begun are not stored, and finish throws its error', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    const org = { id: acme.orgId, number: await componentsRepo.orgNumber(h.database.db, acme.orgId) };
    const { slices } = slicesOf(25);
    const findOrInsert = componentsRepo.findOrInsert;
    const firsts: number[] = [];
    const failure = new Error('the database went away');
    componentsRepo.findOrInsert = async (database, o, reading, positions) => {
      const first = (reading as ReadingSlice).first;
      firsts.push(first);
      if (first === 0) throw failure;
      return findOrInsert(database, o, reading, positions);
    };
    try {
      const storing = storeInSlices(h.database, org, new KnownComponents(1 << 20));
      for (const slice of slices) storing.add(slice);
      await assert.rejects(storing.finish(25), (error) => error === failure);
      assert.deepEqual(firsts, [0, 3], 'the two begun at once; none after the failure');
    } finally {
      componentsRepo.findOrInsert = findOrInsert;
    }
  });

  it('a reading that fails abandons the slices not begun and waits for those under way', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    const org = { id: acme.orgId, number: await componentsRepo.orgNumber(h.database.db, acme.orgId) };
    const { slices } = slicesOf(25);
    await gatedFinds(async (calls, running) => {
      const storing = storeInSlices(h.database, org, new KnownComponents(1 << 20));
      for (const slice of slices) storing.add(slice);
      await until(() => calls.length === SLICES_AT_ONCE);
      let abandoned = false;
      const abandoning = storing.abandon().then(() => {
        abandoned = true;
      });
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(abandoned, false, 'it waits for the slices under way');
      for (const call of calls) call.open();
      await abandoning;
      assert.equal(running(), 0);
      assert.deepEqual(
        calls.map((c) => c.first),
        [0, 3],
        'the slices not begun were not stored',
      );
    });
  });

  it('an upload refused at its last component stores none of its components, and one the database fails stores no revision', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    await h.products.addProduct('acme', 'GW-1', { name: 'gateway' });
    const number = await componentsRepo.orgNumber(h.database.db, acme.orgId);
    const stored = async () =>
      Number(
        (
          await h.database.db
            .selectFrom('components')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('org', '=', number)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const refused = cycloneDx16(3 * READING_SLICES.first);
    delete refused.components.at(-1).name;
    await assert.rejects(
      h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'GW-1', bytes: Buffer.from(JSON.stringify(refused)), actor: 'test' }),
      (error) => error instanceof AppError && error.code === 'invalid_sbom',
    );
    assert.equal(await stored(), 0);

    const findOrInsert = componentsRepo.findOrInsert;
    let calls = 0;
    componentsRepo.findOrInsert = async (database, o, reading, positions) => {
      if (++calls === 2) throw new Error('disk full');
      return findOrInsert(database, o, reading, positions);
    };
    try {
      await assert.rejects(
        h.sbom.ingestSbom({
          orgId: acme.orgId,
          sku: 'GW-1',
          bytes: Buffer.from(JSON.stringify(cycloneDx16(3 * READING_SLICES.first))),
          actor: 'test',
        }),
        /disk full/,
      );
    } finally {
      componentsRepo.findOrInsert = findOrInsert;
    }
    const revisions = await h.database.db.selectFrom('sbom_revisions').select('id').where('org_id', '=', acme.orgId).execute();
    assert.deepEqual(revisions, []);
    // The next upload of the same document stores it whole.
    const doc = cycloneDx16(3 * READING_SLICES.first);
    const done = await h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'GW-1', bytes: Buffer.from(JSON.stringify(doc)), actor: 'test' });
    assert.equal(done.sbom.components, 3 * READING_SLICES.first);
    assert.equal(await stored(), 3 * READING_SLICES.first);
  });
});
