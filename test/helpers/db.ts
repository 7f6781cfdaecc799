import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Migrator, type Migration } from 'kysely';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/index.js';
import { migrations } from '../../src/db/migrations/index.js';
import { columnTypes } from '../../src/db/migrations/types.js';

/** Which backend this run of the suite uses: TEST_DATABASE=sqlite (default) or postgres. */
export const TEST_BACKEND = (process.env.TEST_DATABASE ?? 'sqlite') as 'sqlite' | 'postgres';
/** The shared PostgreSQL server; each test database is created on it and dropped after. */
export const TEST_PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * For a test file that writes to the database directly, outside Database.transaction (a forged
 * registry entry, a table of its own, a migrator of its own): the runner makes such writes throw
 * on SQLite everywhere else (CRA_STRICT_WRITES, src/db/autocommit-writes.ts), so that no path of
 * the service writes so. Call it at the top of the file, before the first test.
 */
export function allowDirectWrites(): void {
  process.env.CRA_STRICT_WRITES = '0';
}

/** The shared Redis; in the postgres run every harness limits through it, under its own key prefix. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  url: string;
  database: Database;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database of the run's backend, private to one test file or test. The
 * migrations run once (per schema on PostgreSQL, per process on SQLite) into a template that
 * each test database is a copy of: `CREATE DATABASE … TEMPLATE` on PostgreSQL, a copied file on
 * SQLite. test/db/ runs the migrations themselves on empty databases.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const url = TEST_BACKEND === 'postgres' ? await newPostgresDatabase(await postgresTemplateName()) : await cloneSqliteTemplate();
  const database = openDatabase(url.url);
  return {
    url: url.url,
    database,
    async drop() {
      await database.close();
      await url.drop();
    },
  };
}

const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));

/** A digest of the migrations' source: a changed migration makes a new template. */
function schemaVersion(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS_DIR).sort()) hash.update(name).update(readFileSync(join(MIGRATIONS_DIR, name)));
  return hash.digest('hex').slice(0, 16);
}

let sqliteTemplate: Promise<string> | undefined;

/** A migrated SQLite file, made once per process; its WAL is folded in when it closes. */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-test-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'cra.db');
    const database = openDatabase(`sqlite:${file}`);
    await migrateToLatest(database);
    await database.close();
    return file;
  })();
  return sqliteTemplate;
}

async function cloneSqliteTemplate(): Promise<{ url: string; drop(): Promise<void> }> {
  const template = await sqliteTemplateFile();
  const empty = newSqliteFile();
  const file = empty.url.slice('sqlite:'.length);
  copyFileSync(template, file);
  if (existsSync(`${template}-wal`)) copyFileSync(`${template}-wal`, `${file}-wal`);
  return empty;
}

/** A path for a new SQLite file in a directory of its own, removed with it. */
function newSqliteFile(): { url: string; drop(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'cra-test-'));
  return {
    url: `sqlite:${join(dir, 'cra.db')}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let postgresTemplate: Promise<string> | undefined;

async function withAdmin<T>(run: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
}

/**
 * The migrated template database of this schema on the shared server, made by the first test
 * process that needs it (the others wait on an advisory lock, then find it). Templates of other
 * schemas are left alone: another checkout's run may be copying one.
 */
function postgresTemplateName(): Promise<string> {
  postgresTemplate ??= withAdmin(async (admin) => {
    const name = `cra_template_${schemaVersion()}`;
    await admin.query('select pg_advisory_lock(hashtext($1))', ['cra_test_template']);
    try {
      const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (exists.rowCount) return name;
      const building = `${name}_building`;
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const url = new URL(TEST_PG_ADMIN_URL);
      url.pathname = `/${building}`;
      const database = openDatabase(url.toString());
      try {
        await migrateToLatest(database);
      } finally {
        await database.close();
      }
      // Only a complete template gets the name the others look for.
      await admin.query(`alter database ${building} rename to ${name}`);
      return name;
    } finally {
      await admin.query('select pg_advisory_unlock(hashtext($1))', ['cra_test_template']);
    }
  });
  return postgresTemplate;
}

/** A new database `cra_test_<random hex>` on the shared server (`template`: a copy of it), dropped with it. */
async function newPostgresDatabase(template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `cra_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(async (admin) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
        return;
      } catch (error) {
        // Another process's CREATE … TEMPLATE of the same template at the same instant.
        if (attempt >= 20 || !/being accessed by other users/.test(String((error as Error).message))) throw error;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  });
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin(async (admin) => void (await admin.query(`drop database if exists ${name} with (force)`))),
  };
}

/** An empty database (no migrations) and how to remove it. */
export function createEmptyDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  return TEST_BACKEND === 'postgres' ? newPostgresDatabase() : Promise.resolve(newSqliteFile());
}

/**
 * A fresh database of this run's backend migrated up to `migration` and no further, as an older
 * release left it (migration tests then store rows of that shape and migrate the rest), and how
 * to close and remove it. Its migrator writes outside Database.transaction: callers allow it.
 */
export async function databaseMigratedTo(migration: string): Promise<{ database: Database; remove(): Promise<void> }> {
  const empty = await createEmptyDatabaseUrl();
  const database = openDatabase(empty.url);
  const remove = async () => {
    await database.close();
    await empty.drop();
  };
  const t = columnTypes(database.dialect);
  const migrator = new Migrator({
    db: database.db,
    provider: {
      getMigrations: async () => Object.fromEntries(migrations.map((m): [string, Migration] => [m.name, { up: (db) => m.up(db, t) }])),
    },
  });
  const { error } = await migrator.migrateTo(migration);
  if (error) {
    await remove();
    throw error;
  }
  return { database, remove };
}
