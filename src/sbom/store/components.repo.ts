import { sql } from 'kysely';
import type { Database, Executor, Trx } from '../../db/index.js';
import type { DialectName } from '../../db/migrations/types.js';
import type { ComponentFields } from '../parse/component-rows.js';
import { decodeIds, encodeIds } from './id-list.js';

/** Ids per query (byIds): short statements, so a read never holds the event loop for long. */
export const LOOKUP_CHUNK = 500;
/**
 * Keys per lookup (findKeys), on either backend: one parameter whatever the count. On SQLite the
 * statement runs on the event loop, ~2–4 ms for this many.
 */
export const KEY_LOOKUP_CHUNK = 2_000;

const COLUMNS = ['org_id', 'key', 'name', 'version', 'purl', 'type', 'licenses', 'ref'] as const;

export interface StoredComponent extends ComponentFields {
  id: number;
}

export const componentsRepo = {
  /**
   * Which of `keys` (a comma-separated list of component keys, component-rows.ts) the
   * organisation stores: for the key at position p in the list, `into[offset + p]` is set to
   * its id; the others are left as they are. The list goes as one parameter and the answer
   * comes by position, so no string per key is built on either side: a JSON array through
   * json_each on SQLite, a text[] with ordinality on PostgreSQL (where an IN list of hundreds
   * of parameters was parsed and planned anew each time). Keys are base64url, which neither
   * form needs to quote or escape. Reads all of `keys` in one statement: callers chunk.
   */
  async findKeys(db: Executor, dialect: DialectName, orgId: string, keys: string, into: Float64Array, offset = 0): Promise<void> {
    if (keys === '') return;
    const query =
      dialect === 'postgres'
        ? // A probe of the unique (org_id, key) index per key, whatever the statistics say (a
          // fresh table's made the planner hash-join a scan of every component the organisation
          // stores, ~35 ms per 2,000 keys at 100,000): LIMIT 1 keeps the subquery a subquery.
          sql<{ p: number; id: number }>`select (j.p - 1)::int as p, c.id from unnest(${`{${keys}}`}::text[]) with ordinality as j(key, p)
            cross join lateral (select id from components where org_id = ${orgId} and key = j.key limit 1) as c`
        : // CROSS JOIN keeps the list as the outer loop: one probe of the unique (org_id, key) index per key.
          sql<{ p: number; id: number }>`select j.key as p, c.id from json_each(${`["${keys.replaceAll(',', '","')}"]`}) as j
            cross join components as c on c.org_id = ${orgId} and c.key = j.value`;
    const { rows } = await query.execute(db);
    for (const row of rows) into[offset + Number(row.p)] = Number(row.id);
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
