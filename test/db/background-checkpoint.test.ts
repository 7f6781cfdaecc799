import assert from 'node:assert/strict';
import { closeSync, openSync, readSync } from 'node:fs';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { createBackgroundCheckpointer } from '../../src/db/sqlite-checkpointer.js';
import { suiteTeardown } from '../helpers/app.js';
import { allowDirectWrites, createTestDatabase, TEST_BACKEND } from '../helpers/db.js';

// It writes tables of its own directly.
allowDirectWrites();

// src/db/sqlite-checkpointer.ts: after a bulk insert, the WAL pages are copied into the
// database file by a thread with its own connection, not on the event loop; and SQLite's
// automatic checkpoint comes back afterwards, so ordinary commits keep the WAL short.

/** mxFrame (last committed WAL frame) and nBackfill (frames copied into the database), from the wal-index. */
function walProgress(path: string): { mxFrame: number; nBackfill: number } {
  const fd = openSync(`${path}-shm`, 'r');
  try {
    const bytes = Buffer.alloc(100);
    readSync(fd, bytes, 0, 100, 0);
    // Native byte order, as the wal-index is (https://sqlite.org/walformat.html).
    const u32 = (offset: number) => (bytes.readUInt32LE(0) === 3007000 ? bytes.readUInt32LE(offset) : bytes.readUInt32BE(offset));
    return { mxFrame: u32(16), nBackfill: u32(96) };
  } finally {
    closeSync(fd);
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (const started = Date.now(); !condition(); ) {
    if (Date.now() - started > 20_000) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('background checkpoints', { skip: TEST_BACKEND !== 'sqlite' }, () => {
  const teardown = suiteTeardown();

  async function fresh() {
    const test = await createTestDatabase();
    teardown.after(() => test.drop());
    await sql`create table t (id integer primary key, v text)`.execute(test.database.db);
    return { ...test, path: test.url.slice('sqlite:'.length) };
  }

  it('copies the WAL into the database from its own thread', async () => {
    const { path } = await fresh();
    // A writer that never checkpoints by itself, on this thread.
    const writer = new SQLite(path);
    writer.pragma('wal_autocheckpoint = 0');
    const insert = writer.prepare('insert into t (v) values (?)');
    writer.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run(`row ${i} ${'x'.repeat(40)}`);
    })();
    const before = walProgress(path);
    assert.ok(before.mxFrame > 100 && before.nBackfill < before.mxFrame, `WAL waits to be copied: ${JSON.stringify(before)}`);

    const checkpointer = createBackgroundCheckpointer(path);
    teardown.after(() => checkpointer.close());
    let done = false;
    assert.equal(
      checkpointer.request(() => {
        done = true;
      }),
      true,
    );
    await until(() => done, 'the checkpoint');
    const after = walProgress(path);
    assert.equal(after.nBackfill, after.mxFrame, 'every committed frame copied');
    assert.equal((writer.prepare('select count(*) as n from t').get() as { n: number }).n, 20_000);
    writer.close();
  });

  it('runs after a bulk insert and gives the automatic checkpoint back', async () => {
    const { database, path } = await fresh();
    const values = Array.from({ length: 40_000 }, (_, i) => [i + 1, `row ${i} ${'y'.repeat(40)}`]).flat();
    // A table of this test's own, outside the schema's types.
    await database.transaction((trx) => database.bulkInsert(trx, 't' as 'components', ['id', 'v'] as unknown as ['id'], values));
    await until(() => {
      const { mxFrame, nBackfill } = walProgress(path);
      return mxFrame > 0 && nBackfill === mxFrame;
    }, 'the bulk insert checkpointed');
    // The next commit is ordinary: with the automatic checkpoint back, it (or one after it)
    // restarts the WAL from its beginning instead of growing it.
    await until(() => {
      void database.transaction((trx) => sql`insert into t (v) values ('after')`.execute(trx));
      return walProgress(path).mxFrame < 100;
    }, 'the WAL restarted');
    const rows = await sql<{ n: number }>`select count(*) as n from t`.execute(database.db);
    assert.ok(rows.rows[0]!.n > 40_000);
  });
});
