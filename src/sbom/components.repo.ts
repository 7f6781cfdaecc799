import { sql } from 'kysely';
import type { Database, Executor, Trx } from '../db/index.js';
import type { DialectName } from '../db/migrations/types.js';
import type { ComponentFields } from './component-rows.js';
import { decodeIds, encodeIds } from './id-list.js';

/** Keys or ids per query: short statements, so a lookup never holds the event loop for long. */
export const LOOKUP_CHUNK = 500;
/** Keys per PostgreSQL lookup (one array parameter; the query runs off the event loop). */
export const ARRAY_LOOKUP_CHUNK = 5_000;

const COLUMNS = ['org_id', 'key', 'name', 'version', 'purl', 'type', 'licenses', 'ref'] as const;

export interface StoredComponent extends ComponentFields {
  id: number;
}

export const componentsRepo = {
  /**
   * The ids of those of `keys` the organisation already stores. On PostgreSQL the keys go as one
   * array parameter (`= any($2)`): an `IN` list of hundreds of parameters is parsed and planned
   * anew each time, which made a 100,000-component ingest spend seconds planning lookups.
   */
  async findIds(
    db: Executor,
    orgId: string,
    keys: readonly string[],
    into = new Map<string, number>(),
    dialect: DialectName = 'sqlite',
  ): Promise<Map<string, number>> {
    if (dialect === 'postgres') {
      for (let i = 0; i < keys.length; i += ARRAY_LOOKUP_CHUNK) {
        const rows = await db
          .selectFrom('components')
          .select(['id', 'key'])
          .where('org_id', '=', orgId)
          .where(sql<boolean>`key = any(${keys.slice(i, i + ARRAY_LOOKUP_CHUNK)}::text[])`)
          .execute();
        for (const row of rows) into.set(row.key, Number(row.id));
      }
      return into;
    }
    for (let i = 0; i < keys.length; i += LOOKUP_CHUNK) {
      const rows = await db
        .selectFrom('components')
        .select(['id', 'key'])
        .where('org_id', '=', orgId)
        .where('key', 'in', keys.slice(i, i + LOOKUP_CHUNK))
        .execute();
      for (const row of rows) into.set(row.key, Number(row.id));
    }
    return into;
  },

  /** New components of the organisation, through the database's bulk insert (inside `trx`). */
  insert(
    database: Pick<Database, 'bulkInsert'>,
    trx: Trx,
    orgId: string,
    rows: ReadonlyArray<{ key: string; fields: ComponentFields }>,
  ): Promise<void> {
    const values: unknown[] = new Array(rows.length * COLUMNS.length);
    let i = 0;
    for (const { key, fields: f } of rows) {
      values[i++] = orgId;
      values[i++] = key;
      values[i++] = f.name;
      values[i++] = f.version;
      values[i++] = f.purl;
      values[i++] = f.type;
      values[i++] = f.licenses;
      values[i++] = f.ref;
    }
    return database.bulkInsert(trx, 'components', COLUMNS, values);
  },

  async byIds(db: Executor, orgId: string, ids: readonly number[]): Promise<Map<number, StoredComponent>> {
    const out = new Map<number, StoredComponent>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += LOOKUP_CHUNK) {
      const rows = await db
        .selectFrom('components')
        .select(['id', 'name', 'version', 'purl', 'type', 'licenses', 'ref'])
        .where('org_id', '=', orgId)
        .where('id', 'in', unique.slice(i, i + LOOKUP_CHUNK))
        .execute();
      for (const row of rows) out.set(Number(row.id), { ...row, id: Number(row.id) });
    }
    return out;
  },

  async insertMembers(trx: Trx, sbomId: string, ids: ArrayLike<number>): Promise<void> {
    await trx
      .insertInto('sbom_members')
      .values({ sbom_id: sbomId, component_ids: encodeIds(ids) })
      .execute();
  },

  /** The revision's component ids in document order (empty for an unknown revision or another organisation's). */
  async memberIds(db: Executor, orgId: string, sbomId: string): Promise<number[]> {
    const row = await db
      .selectFrom('sbom_members as m')
      .innerJoin('sbom_revisions as s', 's.id', 'm.sbom_id')
      .select('m.component_ids')
      .where('m.sbom_id', '=', sbomId)
      .where('s.org_id', '=', orgId)
      .executeTakeFirst();
    return row ? decodeIds(row.component_ids) : [];
  },

  /** The revision's components in document order, as stored. */
  async ofRevision(db: Executor, orgId: string, sbomId: string): Promise<StoredComponent[]> {
    const ids = await componentsRepo.memberIds(db, orgId, sbomId);
    const byId = await componentsRepo.byIds(db, orgId, ids);
    return ids.map((id) => byId.get(id)!);
  },
};
