// The reference an upload of new components is judged against, measured in the same run on the
// same backend (docs/benchmarks.md, "SBOM rows on a portfolio"): the same document's JSON.parse,
// then a plain insert of its components' rows into one indexed table that already holds as many
// rows as the portfolio's components table (one transaction; SQLite through better-sqlite3 in WAL
// mode at synchronous FULL, PostgreSQL through `unnest` of one array per column). No validation,
// no normalisation, no content addresses, no memberships, no revision, no HTTP: what any service
// storing these rows at all would pay, on this machine at this moment. A goal stated as a ratio
// to it holds on a slow host as on a fast one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const COLUMNS = ['org_id', 'key', 'name', 'grp', 'version', 'purl', 'bom_ref', 'license', 'hash'];

/** The rows of a CycloneDX document's components, as a plain insert would write them. */
function rowsOf(document, orgId) {
  return document.components.map((c) => [
    orgId,
    `${c.group ?? ''}/${c.name}@${c.version ?? ''}`,
    c.name,
    c.group ?? null,
    c.version ?? null,
    c.purl ?? null,
    c['bom-ref'] ?? null,
    c.licenses?.[0]?.license?.id ?? null,
    c.hashes?.[0]?.content ?? null,
  ]);
}

async function sqliteTable() {
  const { default: SQLite } = await import('better-sqlite3');
  const dir = mkdtempSync(join(tmpdir(), 'cra-bench-reference-'));
  const db = new SQLite(join(dir, 'reference.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`create table reference_components (id integer primary key, org_id integer not null, key text not null,
    name text not null, grp text, version text, purl text, bom_ref text, license text, hash text)`);
  db.exec('create unique index reference_components_key on reference_components (org_id, key)');
  const insert = db.prepare(`insert into reference_components (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
  const insertAll = db.transaction((rows) => {
    for (const row of rows) insert.run(row);
  });
  return {
    insert: async (rows) => insertAll(rows),
    close: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresTable(databaseUrl) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`create table reference_components (id bigserial primary key, org_id integer not null, key text not null,
    name text not null, grp text, version text, purl text, bom_ref text, license text, hash text)`);
  await client.query('create unique index reference_components_key on reference_components (org_id, key)');
  const types = ['integer', ...COLUMNS.slice(1).map(() => 'text')];
  const statement = `insert into reference_components (${COLUMNS.join(', ')})
    select * from unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;
  return {
    async insert(rows) {
      const arrays = COLUMNS.map((_, i) => rows.map((r) => r[i]));
      await client.query('begin');
      try {
        await client.query(statement, arrays);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    },
    async close() {
      await client.query('drop table if exists reference_components');
      await client.end();
    },
  };
}

/**
 * The reference on `backend` (`sqlite`: a scratch file of its own; `postgres`: a table in the
 * bench's scratch database `databaseUrl`), its table filled first with `prefill` documents'
 * components (the portfolio's distinct components). `measure(bytes)` parses and inserts one
 * document and resolves with the milliseconds it took.
 */
export async function ingestReference(backend, databaseUrl, prefill) {
  const table = backend === 'postgres' ? await postgresTable(databaseUrl) : await sqliteTable();
  const orgId = 1;
  for (const bytes of prefill) await table.insert(rowsOf(JSON.parse(bytes.toString('utf8')), orgId));
  return {
    async measure(bytes) {
      const started = performance.now();
      await table.insert(rowsOf(JSON.parse(bytes.toString('utf8')), orgId));
      return performance.now() - started;
    },
    close: () => table.close(),
  };
}
