import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import SQLite from 'better-sqlite3';
import { openDatabase } from '../../src/db/index.js';
import { createTestDatabase, TEST_BACKEND } from '../helpers/db.js';
import { suiteTeardown } from '../helpers/app.js';

// Database.changeToken (src/db/sqlite-change-token.ts): on SQLite, the wal-index header, which
// every commit rewrites. The key cache is exactly as fresh as this token is, so it must change
// with every commit from anywhere, and should not change with reads (or the cache is useless).
describe('the change token', { skip: TEST_BACKEND !== 'sqlite' }, () => {
  const teardown = suiteTeardown();

  async function fresh() {
    const test = await createTestDatabase();
    teardown.after(() => test.drop());
    const path = test.url.slice('sqlite:'.length);
    await sql`create table t (id integer primary key, v text)`.execute(test.database.db);
    return { ...test, path };
  }

  it('stays the same while only reads happen', async () => {
    const { database } = await fresh();
    const before = database.changeToken();
    assert.notEqual(before, null);
    for (let i = 0; i < 5; i++) await sql`select count(*) from t`.execute(database.db);
    assert.equal(database.changeToken(), before);
  });

  it('changes with every commit of this process', async () => {
    const { database } = await fresh();
    const seen = new Set([database.changeToken()]);
    for (let i = 0; i < 200; i++) {
      await database.transaction((trx) => sql`insert into t (v) values (${`row ${i}`})`.execute(trx));
      const token = database.changeToken();
      assert.ok(token !== null && !seen.has(token), `commit ${i} gave a new token`);
      seen.add(token);
    }
  });

  it('changes when another process commits (as cra-admin does)', async () => {
    const { database, path } = await fresh();
    const before = database.changeToken();
    const script = `const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.prepare("insert into t (v) values ('other process')").run(); db.close();`;
    execFileSync(process.execPath, ['-e', script, path]);
    const after = database.changeToken();
    assert.notEqual(after, null);
    assert.notEqual(after, before);
    const rows = await sql<{ v: string }>`select v from t`.execute(database.db);
    assert.deepEqual(
      rows.rows.map((r) => r.v),
      ['other process'],
    );
  });

  it('never repeats across checkpoints that restart the WAL', async () => {
    const { database, path } = await fresh();
    const other = new SQLite(path);
    teardown.after(async () => void other.close());
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      // The same one-row write each time, so the WAL restarts at the same size and frame count.
      other.prepare('insert or replace into t (id, v) values (1, ?)').run(i % 2 === 0 ? 'a' : 'b');
      if (i % 5 === 0) other.pragma('wal_checkpoint(TRUNCATE)');
      const token = database.changeToken();
      assert.ok(token !== null && !seen.has(token), `write ${i} gave a new token`);
      seen.add(token);
    }
  });

  it('is null where the database cannot tell: SQLite in memory', async () => {
    const memory = openDatabase('sqlite::memory:');
    teardown.after(() => memory.close());
    assert.equal(memory.changeToken(), null);
  });
});

describe('the change token on PostgreSQL', { skip: TEST_BACKEND !== 'postgres' }, () => {
  it('is null: every read goes to the database', async () => {
    const test = await createTestDatabase();
    try {
      assert.equal(test.database.changeToken(), null);
    } finally {
      await test.drop();
    }
  });
});
