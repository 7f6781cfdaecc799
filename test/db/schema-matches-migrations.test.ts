import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type BroadType, type DeclaredSchema, readDeclaredSchema, SCHEMA_FILE } from '../helpers/declared-schema.js';
import { createTestDatabase, TEST_BACKEND, type TestDatabase } from '../helpers/db.js';

// src/db/schema.ts (with schema-vulns.ts) is what every query is typed against; the migrations
// are what the database holds. Nothing else ties them: a column typed but never migrated, or
// typed `string` where the database holds nulls, compiles and fails at run time. This compares
// the TypeScript (read with the compiler's type checker, so every table of `DB` is checked as
// the schema grows) with a freshly migrated database of the run's backend.

/** A column as the migrated database holds it. */
interface MigratedColumn {
  /** Broadly, what the driver hands back; 'other' for what no TypeScript type here matches. */
  type: BroadType | 'other';
  /** The database's own name for it, for the messages. */
  declaredAs: string;
  nullable: boolean;
  /** A default, an identity, SQLite's rowid or a trigger gives a value when an insert gives none. */
  generated: boolean;
}

type MigratedSchema = Map<string, Map<string, MigratedColumn>>;

/** Kysely's own bookkeeping, which no query of ours reads. */
const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * Differences that are known and why they stand, by backend; each must still occur (a fixed one
 * is removed from here).
 */
const KNOWN: Record<typeof TEST_BACKEND, Record<string, string>> = {
  sqlite: {
    // Migration 014 added the column to an existing table, where SQLite cannot add it NOT NULL
    // without a default; the trigger organisations_numbered numbers every new row, so no row
    // holds null. Making it NOT NULL takes a rebuild of the table (a migration).
    'organisations.number: NOT NULL in schema.ts, nullable in the database (integer)':
      'numbered by trigger organisations_numbered (migration 014)',
  },
  postgres: {},
};

async function migratedSchema(test: TestDatabase): Promise<MigratedSchema> {
  const out: MigratedSchema = new Map();
  const add = (table: string, column: string, c: MigratedColumn) => {
    if (MIGRATOR_TABLES.has(table)) return;
    if (!out.has(table)) out.set(table, new Map());
    out.get(table)!.set(column, c);
  };
  const db = test.database.db;
  if (TEST_BACKEND === 'sqlite') {
    const { rows } = await sql<{
      table_name: string;
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
      pk_columns: number;
      numbered_by_trigger: number;
    }>`
      select m.name as table_name, p.name, p.type, p."notnull", p.dflt_value, p.pk,
        (select count(*) from pragma_table_info(m.name) as k where k.pk > 0) as pk_columns,
        exists (select 1 from sqlite_master as t where t.type = 'trigger' and t.tbl_name = m.name
          and t.sql like '%set ' || p.name || ' =%') as numbered_by_trigger
      from sqlite_master as m join pragma_table_info(m.name) as p
      where m.type = 'table' and m.name not like 'sqlite\\_%' escape '\\'`.execute(db);
    for (const r of rows) {
      // An INTEGER PRIMARY KEY is the rowid: never null, numbered when an insert gives none.
      // Any other primary key is NOT NULL on PostgreSQL, and treated so here (SQLite admits a
      // null in one only by a historical quirk that the code never relies on).
      const rowid = r.pk === 1 && r.pk_columns === 1 && r.type.toLowerCase() === 'integer';
      add(r.table_name, r.name, {
        type: sqliteBroadType(r.type),
        declaredAs: r.type.toLowerCase(),
        nullable: r.notnull === 0 && r.pk === 0,
        generated: rowid || r.dflt_value !== null || r.numbered_by_trigger === 1,
      });
    }
  } else {
    const { rows } = await sql<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: 'YES' | 'NO';
      column_default: string | null;
      is_identity: 'YES' | 'NO';
    }>`
      select c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default, c.is_identity
      from information_schema.columns as c
      join information_schema.tables as t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'`.execute(db);
    for (const r of rows) {
      add(r.table_name, r.column_name, {
        type: postgresBroadType(r.data_type),
        declaredAs: r.data_type,
        nullable: r.is_nullable === 'YES',
        generated: r.column_default !== null || r.is_identity === 'YES',
      });
    }
  }
  return out;
}

/** SQLite's type affinity of a declared type (sqlite.org/datatype3.html, 3.1). */
function sqliteBroadType(declared: string): MigratedColumn['type'] {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'number';
  if (/CHAR|CLOB|TEXT/.test(t)) return 'text';
  if (t.includes('BLOB') || t === '') return 'blob';
  if (/REAL|FLOA|DOUB/.test(t)) return 'number';
  return 'other';
}

/**
 * What node-postgres hands back for a data type, with db/postgres.ts's parsers: timestamptz as
 * RFC 3339 text, a uuid as text; a bigint or numeric comes back as a string, which no `number`
 * column may be.
 */
function postgresBroadType(dataType: string): MigratedColumn['type'] {
  if (['integer', 'smallint', 'real', 'double precision'].includes(dataType)) return 'number';
  if (['text', 'uuid', 'timestamp with time zone'].includes(dataType)) return 'text';
  if (dataType === 'bytea') return 'blob';
  return 'other';
}

/** Every way the two differ, a line each; tables and columns in name order. */
function differences(declared: DeclaredSchema, migrated: MigratedSchema): string[] {
  const out: string[] = [];
  const sorted = (names: Iterable<string>) => [...names].sort();
  for (const table of sorted(new Set([...declared.keys(), ...migrated.keys()]))) {
    const ours = declared.get(table);
    const theirs = migrated.get(table);
    if (!ours) {
      out.push(`${table}: in the database, not in schema.ts`);
      continue;
    }
    if (!theirs) {
      out.push(`${table}: in schema.ts, not in the database`);
      continue;
    }
    for (const name of sorted(new Set([...ours.keys(), ...theirs.keys()]))) {
      const t = ours.get(name);
      const d = theirs.get(name);
      const at = `${table}.${name}`;
      if (!t) out.push(`${at}: in the database (${d!.declaredAs}), not in schema.ts`);
      else if (!d) out.push(`${at}: in schema.ts, not in the database`);
      else {
        if (t.nullable !== d.nullable)
          out.push(
            `${at}: ${t.nullable ? 'nullable' : 'NOT NULL'} in schema.ts, ${d.nullable ? 'nullable' : 'NOT NULL'} in the database (${d.declaredAs})`,
          );
        if (t.type !== d.type) out.push(`${at}: ${t.type} in schema.ts, ${d.declaredAs} in the database`);
        if (t.generated && !d.generated) out.push(`${at}: Generated in schema.ts, but the database gives it no value (${d.declaredAs})`);
      }
    }
  }
  return out;
}

describe(`schema.ts against the migrated ${TEST_BACKEND} database`, () => {
  let test: TestDatabase;
  let migrated: MigratedSchema;
  let declared: DeclaredSchema;
  before(async () => {
    test = await createTestDatabase();
    migrated = await migratedSchema(test);
    declared = readDeclaredSchema();
  });
  after(() => test?.drop());

  it('reads both sides: the tables of schema.ts and schema-vulns.ts, the encoded component columns as text', () => {
    for (const table of ['organisations', 'components', 'vuln_records', 'findings']) {
      assert.ok(declared.has(table), `${table} declared`);
      assert.ok(migrated.has(table), `${table} migrated`);
    }
    const components = declared.get('components')!;
    assert.deepEqual(components.get('purl'), { type: 'text', nullable: true, generated: false });
    assert.deepEqual(components.get('forms'), { type: 'number', nullable: false, generated: true });
    assert.equal(components.get('key')!.type, 'blob');
  });

  it('holds the same tables, columns, nullability and broad types (known differences aside)', () => {
    const known = KNOWN[TEST_BACKEND];
    const found = differences(declared, migrated);
    assert.deepEqual(
      found.filter((d) => !(d in known)),
      [],
    );
    assert.deepEqual(
      Object.keys(known).filter((d) => !found.includes(d)),
      [],
      'a known difference that no longer occurs: remove it from KNOWN',
    );
  });

  it('finds a schema.ts that drifts from the migrations', () => {
    // Faults written into the real file's text: a column no migration adds and one a migration
    // adds that is left out, one typed NOT NULL that the database allows null in and one the
    // other way round, one typed as a number that holds text, a Generated column the database
    // gives no value, a table no migration creates and one left out.
    const original = readFileSync(SCHEMA_FILE, 'utf8');
    const edits: Array<[string, string]> = [
      ['  gtin_declared: string | null;\n', '  gtin_declared: string | null;\n  gtin_checked_at: string | null;\n'],
      ['  firmware_version: string | null;\n', '  firmware_version: string;\n'],
      ['  sbom_status: SbomStatus;\n', '  sbom_status: number;\n'],
      ['  prefix: string;\n', '  prefix: string | null;\n'],
      ['  writes: number;\n', '  writes: Generated<number>;\n'],
      ['  dedup_key: string | null;\n', ''],
      ['  write_probe: WriteProbeTable;\n', '  write_probe: WriteProbeTable;\n  product_files: SetupLinksTable;\n'],
      ['  scheduler_runs: SchedulerRunsTable;\n', ''],
    ];
    let text = original;
    for (const [from, to] of edits) {
      assert.ok(text.includes(from), `schema.ts no longer holds ${JSON.stringify(from)}: update this test`);
      text = text.replace(from, to);
    }
    const found = differences(readDeclaredSchema(SCHEMA_FILE, text), migrated).filter((d) => !(d in KNOWN[TEST_BACKEND]));
    const declaredAs = (at: string) => migrated.get(at.split('.')[0]!)!.get(at.split('.')[1]!)!.declaredAs;
    assert.deepEqual(found, [
      `api_keys.prefix: nullable in schema.ts, NOT NULL in the database (${declaredAs('api_keys.prefix')})`,
      `product_files: in schema.ts, not in the database`,
      `products.firmware_version: NOT NULL in schema.ts, nullable in the database (${declaredAs('products.firmware_version')})`,
      `products.gtin_checked_at: in schema.ts, not in the database`,
      `products.sbom_status: number in schema.ts, ${declaredAs('products.sbom_status')} in the database`,
      'scheduler_runs: in the database, not in schema.ts',
      `webhook_events.dedup_key: in the database (${declaredAs('webhook_events.dedup_key')}), not in schema.ts`,
      `write_probe.writes: Generated in schema.ts, but the database gives it no value (${declaredAs('write_probe.writes')})`,
    ]);
  });
});
