import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { openDatabase } from '../../src/db/index.js';
import { LISTENER_NAME } from '../../src/db/postgres-changes.js';
import { allowDirectWrites, createTestDatabase, TEST_BACKEND } from '../helpers/db.js';
import { suiteTeardown } from '../helpers/app.js';

// It writes tables of its own directly, as another process would.
allowDirectWrites();

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
    const before = await database.changeToken();
    assert.notEqual(before, null);
    for (let i = 0; i < 5; i++) await sql`select count(*) from t`.execute(database.db);
    assert.equal(await database.changeToken(), before);
  });

  it('changes with every commit of this process', async () => {
    const { database } = await fresh();
    const seen = new Set([await database.changeToken()]);
    for (let i = 0; i < 200; i++) {
      await database.transaction((trx) => sql`insert into t (v) values (${`row ${i}`})`.execute(trx));
      const token = await database.changeToken();
      assert.ok(token !== null && !seen.has(token), `commit ${i} gave a new token`);
      seen.add(token);
    }
  });

  it('changes when another process commits (as cra-admin does)', async () => {
    const { database, path } = await fresh();
    const before = await database.changeToken();
    const script = `const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.prepare("insert into t (v) values ('other process')").run(); db.close();`;
    execFileSync(process.execPath, ['-e', script, path]);
    const after = await database.changeToken();
    assert.notEqual(after, null);
    assert.notEqual(after, before);
    const rows = await sql<{ v: string }>`select v from t`.execute(database.db);
    assert.deepEqual(
      rows.rows.map((r) => r.v),
      ['other process'],
    );
  });

  it('is read once for the callers of one turn, after the last of them called', async () => {
    const { database, path } = await fresh();
    const other = new SQLite(path);
    teardown.after(async () => void other.close());
    const before = await database.changeToken();
    const first = database.changeToken();
    // Committed after the first call and before the second, in the same turn: one read after
    // both calls serves both, and sees the commit.
    other.prepare("insert into t (v) values ('between')").run();
    const second = database.changeToken();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a, b);
    assert.notEqual(a, before);
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
      const token = await database.changeToken();
      assert.ok(token !== null && !seen.has(token), `write ${i} gave a new token`);
      seen.add(token);
    }
  });

  it('is null where the database cannot tell: SQLite in memory', async () => {
    const memory = openDatabase('sqlite::memory:');
    teardown.after(() => memory.close());
    assert.equal(await memory.changeToken(), null);
  });
});

// PostgreSQL (src/db/postgres-changes.ts): a listening connection hears the notices that
// migration 013's triggers send when API keys or organisations change.
describe('the change token on PostgreSQL', { skip: TEST_BACKEND !== 'postgres' }, () => {
  const teardown = suiteTeardown();

  async function listening() {
    const test = await createTestDatabase();
    teardown.after(() => test.drop());
    const other = new pg.Client({ connectionString: test.url });
    await other.connect();
    teardown.after(() => other.end());
    await eventually(async () => (await test.database.changeToken()) !== null, 'listening');
    return { ...test, other };
  }

  async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (!(await check())) {
      if (Date.now() > deadline) assert.fail(`not ${what} within 5 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  it('stays the same while only reads happen, there or elsewhere', async () => {
    const { database, other } = await listening();
    const before = await database.changeToken();
    for (let i = 0; i < 5; i++) await sql`select count(*) from api_keys`.execute(database.db);
    await other.query('select count(*) from organisations');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await database.changeToken(), before);
  });

  it('changes with every commit of this process, before the commit is reported', async () => {
    const { database } = await listening();
    const seen = new Set([await database.changeToken()]);
    for (let i = 0; i < 20; i++) {
      await database.transaction((trx) => sql`select 1`.execute(trx));
      const token = await database.changeToken();
      assert.ok(token !== null && !seen.has(token), `commit ${i} gave a new token`);
      seen.add(token);
    }
  });

  it('changes when another connection changes an organisation or a key (as cra-admin does)', async () => {
    const { database, other } = await listening();
    // Read as soon as the other connection's commit is answered: the notice travels on its own
    // and may not be here yet, so only the round trip the token waits for makes this exact.
    async function changedBy(statement: string, what: string): Promise<void> {
      const before = await database.changeToken();
      await other.query(statement);
      assert.notEqual(await database.changeToken(), before, `changed by ${what}, at once`);
    }
    await changedBy(
      "insert into organisations (id, slug, name, created_at, registry_head) values ('00000000-0000-4000-8000-000000000001', 'elsewhere', 'Elsewhere', now(), '')",
      'an insert elsewhere',
    );
    for (let i = 0; i < 100; i++) await changedBy(`update organisations set name = 'Renamed ${i}' where slug = 'elsewhere'`, `update ${i}`);
    await changedBy('delete from api_keys', 'a delete elsewhere');
  });

  it('answers every caller of a crowd that waits together, each after the change', async () => {
    const { database, other } = await listening();
    const before = await database.changeToken();
    await other.query(
      "insert into organisations (id, slug, name, created_at, registry_head) values ('00000000-0000-4000-8000-000000000002', 'crowd', 'Crowd', now(), '')",
    );
    const tokens = await Promise.all(Array.from({ length: 500 }, () => database.changeToken()));
    assert.equal(new Set(tokens).size, 1, 'one round trip answered them all');
    assert.ok(tokens[0] !== null && tokens[0] !== before);
  });

  it('is null while the listening connection is lost, and moves when it is made again', async () => {
    const { database, other } = await listening();
    const before = await database.changeToken();
    await other.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = '${LISTENER_NAME}' and datname = current_database()`,
    );
    await eventually(async () => (await database.changeToken()) === null, 'null once the connection is lost');
    await eventually(async () => (await database.changeToken()) !== null, 'listening again');
    assert.notEqual(await database.changeToken(), before);
  });
});
