import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.js';

/** Which backend this run of the suite uses: TEST_DATABASE=sqlite (default) or postgres. */
export const TEST_BACKEND = (process.env.TEST_DATABASE ?? 'sqlite') as 'sqlite' | 'postgres';
/** The shared PostgreSQL server; each test database is created on it and dropped after. */
export const TEST_PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The shared Redis; in the postgres run every harness limits through it, under its own key prefix. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  url: string;
  database: Database;
  drop(): Promise<void>;
}

/** A fresh, migrated database of the run's backend, private to one test file or test. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const url = await createEmptyDatabaseUrl();
  const database = openDatabase(url.url);
  await migrateToLatest(database);
  return {
    url: url.url,
    database,
    async drop() {
      await database.close();
      await url.drop();
    },
  };
}

/** An empty database (no migrations) and how to remove it. */
export async function createEmptyDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  if (TEST_BACKEND === 'postgres') {
    const name = `cra_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(TEST_PG_ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'cra-test-'));
  return {
    url: `sqlite:${join(dir, 'cra.db')}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
