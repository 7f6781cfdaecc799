import { sql, type Kysely } from 'kysely';
import { componentKey, storedComponentText, type ComponentFields } from '../../sbom/component-rows.js';
import { encodeIds } from '../../sbom/id-list.js';
import type { PortableMigration } from './types.js';

// Revisions stop copying their components: each distinct component is stored once per
// organisation (content-addressed), and a revision keeps the packed list of its components'
// ids. The existing rows of sbom_components move over, then the table goes.

const ROWS_PER_INSERT = 500;

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
