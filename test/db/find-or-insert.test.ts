import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database, PackedRows } from '../../src/db/index.js';
import { BULK_SHARE_OF_POOL } from '../../src/db/postgres.js';
import { createServices } from '../../src/services.js';
import { createTestDatabase, TEST_BACKEND, type TestDatabase } from '../helpers/db.js';

// Database.findOrInsert, per dialect (a writer thread with its own connection on SQLite, unnest
// statements on PostgreSQL): rows found by a unique key or stored, in one transaction, the ids
// in order; the process's other writes wait their turn, and the event loop goes on meanwhile.

/** The key of row i of `prefix`: the name's first, then the row's (keys are unique per organisation). */
function keyOf(prefix: string, i: number): Buffer {
  const key = Buffer.alloc(16, i % 251);
  key.write(prefix.padEnd(4, '.').slice(0, 4), 0, 'latin1');
  key.writeUInt32BE(i, 4);
  return key;
}

/** Rows of the components table: name `${prefix}-${i}`, a key of the index's bytes, every fourth flagged. */
function rows(org: number, prefix: string, count: number, pick?: number[]): PackedRows {
  const texts: Buffer[] = [];
  const offsets = new Uint32Array(count + 1);
  const keys = new Uint8Array(count * 16);
  const flags = new Uint8Array(count);
  let at = 0;
  for (let i = 0; i < count; i++) {
    const text = Buffer.from(
      [`${prefix}-${i}`, i % 3 ? `1.${i}` : '', `pkg:npm/${prefix}-${i}@1.${i}`, 'library', '', `ref-${i}`].join('\u0000'),
    );
    offsets[i] = at;
    at += text.length;
    texts.push(text);
    keys.set(keyOf(prefix, i), i * 16);
    flags[i] = i % 4 === 0 ? 1 : 0;
  }
  offsets[count] = at;
  return {
    table: 'components',
    unique: ['org', 'key'],
    shared: { org },
    textColumns: ['name', 'version', 'purl', 'type', 'licenses', 'ref'],
    keepEmpty: ['name'],
    texts: new Uint8Array(Buffer.concat(texts)),
    offsets,
    binary: { column: 'key', bytes: keys, width: 16 },
    integers: [{ column: 'purl_name_differs', values: flags }],
    rows: Uint32Array.from(pick ?? Array.from({ length: count }, (_, i) => i)),
  };
}

describe(`Database.findOrInsert (${TEST_BACKEND})`, () => {
  let t: TestDatabase;
  let database: Database;
  let org: number;
  let other: number;

  before(async () => {
    t = await createTestDatabase();
    database = t.database;
    const { orgs } = createServices({ database });
    const numberOf = async (slug: string) => {
      const { id } = await orgs.createOrg({ slug });
      return Number((await database.db.selectFrom('organisations').select('number').where('id', '=', id).executeTakeFirstOrThrow()).number);
    };
    org = await numberOf('rows-a');
    other = await numberOf('rows-b');
  });
  after(async () => {
    await t.drop();
  });

  const stored = (prefix: string) =>
    database.db
      .selectFrom('components')
      .select(['id', 'org', 'key', 'name', 'version', 'purl', 'type', 'licenses', 'ref', 'purl_name_differs'])
      .where('name', 'like', `${prefix}-%`)
      .orderBy('id')
      .execute();

  it('stores each row once, with every value where it belongs, and finds it again by its key', async () => {
    const batch = rows(org, 'a', 12_000);
    const ids = await database.findOrInsert(batch);
    assert.equal(ids.length, 12_000);
    assert.equal(new Set(ids).size, 12_000);
    const saved = await stored('a');
    assert.equal(saved.length, 12_000);
    const byId = new Map(saved.map((r) => [Number(r.id), r]));
    for (const i of [0, 1, 3, 4, 11_999]) {
      const row = byId.get(ids[i]!)!;
      const key = keyOf('a', i);
      assert.deepEqual(
        { ...row, id: 0, org: Number(row.org), key: Buffer.from(row.key), purl_name_differs: Number(row.purl_name_differs) },
        {
          id: 0,
          org,
          key,
          name: `a-${i}`,
          version: i % 3 ? `1.${i}` : null,
          purl: `pkg:npm/a-${i}@1.${i}`,
          type: 'library',
          licenses: null,
          ref: `ref-${i}`,
          purl_name_differs: i % 4 === 0 ? 1 : 0,
        },
        `row ${i}`,
      );
    }
    // Again, some rows listed twice and in another order: the same ids, nothing stored.
    const again = await database.findOrInsert(rows(org, 'a', 12_000, [5, 0, 5, 11_999]));
    assert.deepEqual([...again], [ids[5], ids[0], ids[5], ids[11_999]]);
    assert.equal((await stored('a')).length, 12_000);
    // The same rows for another organisation are rows of its own.
    const theirs = await database.findOrInsert(rows(other, 'a', 3));
    assert.ok([...theirs].every((id) => !ids.includes(id)));
    assert.deepEqual([...(await database.findOrInsert(rows(org, 'a', 1, [])))], []);
  });

  it('gives a new row listed twice one id at both places, beside rows stored before', async () => {
    const before = await database.findOrInsert(rows(org, 'e', 10, [1, 2]));
    const ids = await database.findOrInsert(rows(org, 'e', 10, [3, 1, 7, 3, 2, 9, 7]));
    assert.deepEqual([ids[1], ids[4]], [...before], 'the stored rows keep their ids');
    assert.equal(ids[0], ids[3]);
    assert.equal(ids[2], ids[6]);
    assert.equal(new Set(ids).size, 5);
    assert.ok([...ids].every((id) => id > 0));
    const saved = await stored('e');
    assert.deepEqual(saved.map((r) => r.name).sort(), ['e-1', 'e-2', 'e-3', 'e-7', 'e-9']);
    const nameOf = new Map(saved.map((r) => [Number(r.id), r.name]));
    assert.deepEqual(
      [...ids].map((id) => nameOf.get(id)),
      ['e-3', 'e-1', 'e-7', 'e-3', 'e-2', 'e-9', 'e-7'],
    );
  });

  it('gives concurrent calls with the same new rows the same ids, each row stored once', async () => {
    const [one, two] = await Promise.all([database.findOrInsert(rows(org, 'b', 6_000)), database.findOrInsert(rows(org, 'b', 6_000))]);
    assert.deepEqual([...one], [...two]);
    assert.equal((await stored('b')).length, 6_000);
  });

  it('lets the event loop run while it writes, and the process’s other writes wait their turn', async () => {
    let turns = 0;
    let running = true;
    const spin = () => {
      turns++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const writing = database.findOrInsert(rows(org, 'c', 40_000));
    // A transaction started meanwhile neither fails on SQLite's lock nor is lost.
    const meanwhile = database.transaction((trx) =>
      trx.updateTable('organisations').set({ name: 'Rows B' }).where('number', '=', other).execute(),
    );
    const ids = await writing;
    running = false;
    await meanwhile;
    assert.equal(ids.length, 40_000);
    assert.ok(turns > 10, `the event loop turned ${turns} times while 40,000 rows were written`);
    const renamed = await database.db.selectFrom('organisations').select('name').where('number', '=', other).executeTakeFirstOrThrow();
    assert.equal(renamed.name, 'Rows B');
  });

  it('refuses, in the test suite, a write outside a transaction, which would wait for the writer thread on the event loop', {
    skip: TEST_BACKEND !== 'sqlite',
  }, async () => {
    process.env.CRA_STRICT_WRITES = '1'; // as the test runner sets it
    await assert.rejects(
      database.db.updateTable('organisations').set({ name: 'Direct' }).where('number', '=', other).execute(),
      /a write outside Database\.transaction on SQLite: update "organisations"/,
    );
    await database.transaction((trx) => trx.updateTable('organisations').set({ name: 'In turn' }).where('number', '=', other).execute());
  });

  it('stores nothing of a batch that fails, says why, and writes the next one', async () => {
    const bad = rows(org, 'd', 500);
    // A row with no name: the text column that may not be null.
    const broken = { ...bad, keepEmpty: [], texts: new Uint8Array(Buffer.concat([Buffer.from(bad.texts), Buffer.from('\u0000x')])) };
    const offsets = new Uint32Array(502);
    offsets.set(bad.offsets);
    offsets[501] = offsets[500]! + 2;
    await assert.rejects(
      database.findOrInsert({ ...broken, offsets, rows: Uint32Array.from([...bad.rows, 500]) }),
      (error: Error & { code?: string }) => {
        assert.match(`${error.code} ${error.message}`, /NOT NULL|null value|23502/i);
        return true;
      },
    );
    assert.equal((await stored('d')).length, 0, 'the batch is undone whole');
    assert.equal((await database.findOrInsert(rows(org, 'd', 500))).length, 500);
    assert.equal((await stored('d')).length, 500);
  });

  it('on PostgreSQL, holds at most four in ten of the pool’s connections, however many calls run at once', {
    skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL only (SQLite writes on one thread)',
  }, async () => {
    const transaction = database.transaction;
    let open = 0;
    let most = 0;
    database.transaction = (async (work: Parameters<Database['transaction']>[0]) =>
      transaction.call(database, async (trx) => {
        most = Math.max(most, ++open);
        try {
          // Long enough for every call to be under way at once.
          await new Promise((resolve) => setTimeout(resolve, 30));
          return await work(trx);
        } finally {
          open--;
        }
      })) as Database['transaction'];
    try {
      // Three calls of three chunks each (5,000 rows a chunk), as three large uploads' slices.
      const calls = ['e', 'f', 'g'].map((prefix) => database.findOrInsert(rows(org, prefix, 15_000)));
      const answers = await Promise.all(calls);
      assert.ok(answers.every((ids) => ids.length === 15_000 && ids.every((id) => id > 0)));
    } finally {
      database.transaction = transaction;
    }
    assert.equal(most, Math.floor(10 * BULK_SHARE_OF_POOL), 'the bulk slots, all in use, and never more');
  });
});
