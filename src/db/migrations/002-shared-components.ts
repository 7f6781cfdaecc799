import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { PortableMigration } from './types.js';

// Revisions stop copying their components: each distinct component is stored once per
// organisation (content-addressed), and a revision keeps the packed list of its components'
// ids. The existing rows of sbom_components move over, then the table goes.

const ROWS_PER_INSERT = 500;

// Frozen copies of what the migration needs from the SBOM code as it was when 002 shipped: a
// migration must do tomorrow what it did then, whatever becomes of the live code. The keys and
// lists it writes must still be what the live code reads: test/db/migration-002-frozen.test.ts
// compares them, so a change to the live functions is noticed (and needs a new migration).

interface ComponentFields {
  name: string;
  version: string | null;
  purl: string | null;
  type: string | null;
  licenses: string | null;
  ref: string | null;
}

/** A component's stored fields joined by NUL, absent values empty (sbom/parse/component-rows.ts). */
function storedComponentText(f: ComponentFields): string {
  return [f.name, f.version ?? '', f.purl ?? '', f.type ?? '', f.licenses ?? '', f.ref ?? ''].join('\u0000');
}

/** 128 bits of SHA-256 of the text, base64url (sbom/parse/component-rows.ts). */
function componentKey(text: string): string {
  return createHash('sha256').update(text).digest().subarray(0, 16).toString('base64url');
}

/** Ids in order, each the zigzag varint of its difference to the previous one (sbom/store/id-list.ts). */
function encodeIds(ids: readonly number[]): Buffer {
  const out = Buffer.allocUnsafe(ids.length * 5 + 16);
  let at = 0;
  let previous = 0;
  for (const id of ids) {
    const delta = id - previous;
    previous = id;
    let z = delta >= 0 ? delta * 2 : -delta * 2 - 1;
    while (z >= 0x80) {
      out[at++] = (z % 0x80) | 0x80;
      z = Math.floor(z / 0x80);
    }
    out[at++] = z;
  }
  return Buffer.from(out.subarray(0, at));
}

/** For the test that holds these copies to the live code. */
export const frozen002 = { storedComponentText, componentKey, encodeIds };

export const sharedComponents: PortableMigration = {
  name: '002-shared-components',
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's DB type
  async up(db: Kysely<any>, t) {
    const postgres = t.uuid === 'uuid';
    await db.schema
      .createTable('components')
      .addColumn('id', 'integer', (c) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('version', 'text')
      .addColumn('purl', 'text')
      .addColumn('type', 'text')
      .addColumn('licenses', 'text')
      .addColumn('ref', 'text')
      .addUniqueConstraint('components_org_key', ['org_id', 'key'])
      .execute();
    // Portfolio search: by purl, or by name (and version).
    await db.schema.createIndex('components_org_purl').on('components').columns(['org_id', 'purl']).execute();
    await db.schema.createIndex('components_org_name').on('components').columns(['org_id', 'name', 'version']).execute();
    await db.schema
      .createTable('sbom_members')
      .addColumn('sbom_id', t.uuid, (c) => c.primaryKey().references('sbom_revisions.id'))
      .addColumn('component_ids', postgres ? sql`bytea` : sql`blob`, (c) => c.notNull())
      .execute();

    const revisions = await db.selectFrom('sbom_revisions').select(['id', 'org_id']).orderBy('ingested_at').orderBy('id').execute();
    for (const revision of revisions) {
      const rows: ComponentFields[] = await db
        .selectFrom('sbom_components')
        .select(['name', 'version', 'purl', 'type', 'licenses', 'ref'])
        .where('sbom_id', '=', revision.id)
        .orderBy('position')
        .execute();
      const keys = rows.map((row) => componentKey(storedComponentText(row)));
      const ids = new Map<string, number>();
      const lookUp = async (wanted: string[]) => {
        for (let i = 0; i < wanted.length; i += ROWS_PER_INSERT) {
          const found = await db
            .selectFrom('components')
            .select(['id', 'key'])
            .where('org_id', '=', revision.org_id)
            .where('key', 'in', wanted.slice(i, i + ROWS_PER_INSERT))
            .execute();
          for (const f of found) ids.set(f.key as string, Number(f.id));
        }
      };
      await lookUp([...new Set(keys)]);
      const fresh = new Map<string, ComponentFields>();
      rows.forEach((row, i) => {
        if (!ids.has(keys[i]!)) fresh.set(keys[i]!, row);
      });
      const values = [...fresh].map(([key, row]) => ({ org_id: revision.org_id, key, ...row }));
      for (let i = 0; i < values.length; i += ROWS_PER_INSERT)
        await db
          .insertInto('components')
          .values(values.slice(i, i + ROWS_PER_INSERT))
          .execute();
      await lookUp([...fresh.keys()]);
      await db
        .insertInto('sbom_members')
        .values({ sbom_id: revision.id, component_ids: encodeIds(keys.map((k) => ids.get(k)!)) })
        .execute();
    }
    await db.schema.dropTable('sbom_components').execute();
  },
};
