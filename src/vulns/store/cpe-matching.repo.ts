import { sql } from 'kysely';
import { type Database, type DialectName, type Executor, inList } from '../../db/index.js';
import { purlColumn } from '../../sbom/store/components.repo.js';

// CPE matching's tables: what the matcher read of each component's CPEs (`component_cpe_reads`:
// 'matchable' or the coverage reason; `component_cpe_keys`: the vendor:product pairs it is
// matched under), the NVD records naming those pairs, the SBOM subjects' CPEs, and the
// organisation's confirmed mappings.

/** A component as CPE matching reads it. */
export interface CpeComponentRow {
  id: number;
  org: number;
  name: string;
  version: string | null;
  cpes: string | null;
}

/** A component's reading: its status, and the vendor:product pairs it is matched under. */
export interface CpeReading {
  id: number;
  status: string;
  keys: readonly string[];
}

const componentColumns = ['c.id', 'c.org', 'c.name', 'c.version', 'c.cpes'] as const;
const asRows = (rows: ReadonlyArray<{ id: number | string; org: number; name: string; version: string | null; cpes: string | null }>) =>
  rows.map((r): CpeComponentRow => ({ ...r, id: Number(r.id) }));

export const cpeMatchingRepo = {
  /** The components among `ids` whose CPEs were not read yet. */
  async unreadAmong(db: Executor, dialect: DialectName, ids: readonly number[]): Promise<CpeComponentRow[]> {
    const rows = await db
      .selectFrom('components as c')
      .leftJoin('component_cpe_reads as r', 'r.component_id', 'c.id')
      .select([...componentColumns])
      .where(inList(dialect, 'c.id', ids, 'integer'))
      .where('r.component_id', 'is', null)
      .execute();
    return asRows(rows);
  },

  /** Up to `limit` components whose CPEs were not read yet, after the id `after`, in id order. */
  async unreadAfter(db: Executor, after: number, limit: number): Promise<number[]> {
    const rows = await db
      .selectFrom('components as c')
      .leftJoin('component_cpe_reads as r', 'r.component_id', 'c.id')
      .select('c.id')
      .where('c.id', '>', after)
      .where('r.component_id', 'is', null)
      .orderBy('c.id')
      .limit(limit)
      .execute();
    return rows.map((r) => Number(r.id));
  },

  /** Records these readings; a component read meanwhile by another instance keeps its rows. */
  async recordReadings(database: Database, readings: readonly CpeReading[]): Promise<void> {
    if (readings.length === 0) return;
    const keys = readings.flatMap((r) => r.keys.map((key) => ({ product_key: key, component_id: r.id })));
    if (database.dialect === 'postgres') {
      // Two statements whatever the number: each is a round trip.
      await database.transaction(async (trx) => {
        await sql`insert into component_cpe_reads (component_id, status)
          select * from unnest(${readings.map((r) => r.id)}::integer[], ${readings.map((r) => r.status)}::text[])
          on conflict (component_id) do nothing`.execute(trx);
        if (keys.length)
          await sql`insert into component_cpe_keys (product_key, component_id)
            select * from unnest(${keys.map((k) => k.product_key)}::text[], ${keys.map((k) => k.component_id)}::integer[])
            on conflict do nothing`.execute(trx);
      });
      return;
    }
    await database.transaction(async (trx) => {
      for (let i = 0; i < readings.length; i += 500)
        await trx
          .insertInto('component_cpe_reads')
          .values(readings.slice(i, i + 500).map((r) => ({ component_id: r.id, status: r.status })))
          .onConflict((oc) => oc.column('component_id').doNothing())
          .execute();
      for (let i = 0; i < keys.length; i += 500)
        await trx
          .insertInto('component_cpe_keys')
          .values(keys.slice(i, i + 500))
          .onConflict((oc) => oc.columns(['product_key', 'component_id']).doNothing())
          .execute();
    });
  },

  /** Forgets what was read of these components' CPEs (a mapping of their name changed). */
  async forgetReadings(database: Database, ids: readonly number[]): Promise<void> {
    await database.transaction(async (trx) => {
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        await trx.deleteFrom('component_cpe_keys').where('component_id', 'in', chunk).execute();
        await trx.deleteFrom('component_cpe_reads').where('component_id', 'in', chunk).execute();
      }
    });
  },

  /** The components among `ids` that are matchable by CPE, with what their identities are resolved from. */
  async matchableAmong(db: Executor, dialect: DialectName, ids: readonly number[]): Promise<CpeComponentRow[]> {
    const rows = await db
      .selectFrom('components as c')
      .innerJoin('component_cpe_reads as r', 'r.component_id', 'c.id')
      .select([...componentColumns])
      .where(inList(dialect, 'c.id', ids, 'integer'))
      .where('r.status', 'in', ['matchable', 'version_unparsable'])
      .execute();
    return asRows(rows);
  },

  /** The vendor:product pairs the components among `ids` are matched under (none for one not matchable or not read). */
  async keysAmong(
    db: Executor,
    dialect: DialectName,
    ids: readonly number[],
  ): Promise<Array<{ component_id: number; product_key: string }>> {
    const rows = await db
      .selectFrom('component_cpe_keys')
      .select(['component_id', 'product_key'])
      .where(inList(dialect, 'component_id', ids, 'integer'))
      .execute();
    return rows.map((r) => ({ component_id: Number(r.component_id), product_key: r.product_key }));
  },

  /** Component id → its CPE reading's status, for the components among `ids` read. */
  async statusesOf(db: Executor, dialect: DialectName, ids: readonly number[]): Promise<Map<number, string>> {
    const rows = await db
      .selectFrom('component_cpe_reads')
      .select(['component_id', 'status'])
      .where(inList(dialect, 'component_id', ids, 'integer'))
      .execute();
    return new Map(rows.map((r) => [Number(r.component_id), r.status]));
  },

  /** The live NVD records naming any of `keys` (or every product: '*'), each with the keys it names. */
  async recordsNaming(db: Executor, dialect: DialectName, keys: readonly string[]) {
    return db
      .selectFrom('nvd_record_products as p')
      .innerJoin('nvd_records as n', 'n.cve', 'p.cve')
      .select(['p.product_key', 'n.cve', 'n.digest'])
      .where(inList(dialect, 'p.product_key', [...keys, '*'], 'text'))
      .where('n.withdrawn', 'is', null)
      .execute();
  },

  /** The configurations (JSON) of these records. */
  configurationsOf(db: Executor, dialect: DialectName, cves: readonly string[]) {
    return db
      .selectFrom('nvd_records')
      .select(['cve', 'digest', 'configurations'])
      .where(inList(dialect, 'cve', cves, 'text'))
      .execute();
  },

  /** These components with their purls and CPEs (coverage, candidates). */
  async identifiersOf(
    db: Executor,
    dialect: DialectName,
    ids: readonly number[],
  ): Promise<Array<CpeComponentRow & { purl: string | null }>> {
    const rows = await db
      .selectFrom('components as c')
      .select([...componentColumns, purlColumn('c').as('purl')])
      .where(inList(dialect, 'c.id', ids, 'integer'))
      .execute();
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  },

  /** Every vendor:product the live NVD records held name (candidates). */
  async nvdProductKeys(db: Executor): Promise<string[]> {
    const rows = await db.selectFrom('nvd_record_products').select('product_key').distinct().where('product_key', '!=', '*').execute();
    return rows.map((r) => r.product_key);
  },

  /** Whether any NVD record is held: until one is, there is nothing to match CPEs against. */
  async anyRecord(db: Executor): Promise<boolean> {
    return (await db.selectFrom('nvd_records').select('cve').limit(1).executeTakeFirst()) !== undefined;
  },

  /** Each revision's subject CPEs (newline-separated), by SBOM id. */
  async subjectsOf(db: Executor, sbomIds: readonly string[]): Promise<Map<string, string | null>> {
    if (sbomIds.length === 0) return new Map();
    const rows = await db.selectFrom('sbom_revisions').select(['id', 'subject_cpes']).where('id', 'in', sbomIds).execute();
    return new Map(rows.map((r) => [r.id, r.subject_cpes]));
  },

  /** The confirmed mappings of the organisations numbered `orgs`: org number → normalised name → CPEs. */
  async mappingsOf(db: Executor, orgs: readonly number[]): Promise<Map<number, Map<string, string[]>>> {
    const out = new Map<number, Map<string, string[]>>();
    if (orgs.length === 0) return out;
    const rows = await db
      .selectFrom('cpe_mappings as m')
      .innerJoin('organisations as o', 'o.id', 'm.org_id')
      .select(['o.number', 'm.name', 'm.cpe'])
      .where('o.number', 'in', [...new Set(orgs)])
      .orderBy('m.created_at')
      .execute();
    for (const r of rows) {
      const byName = out.get(r.number) ?? new Map<string, string[]>();
      byName.set(r.name, [...(byName.get(r.name) ?? []), r.cpe]);
      out.set(r.number, byName);
    }
    return out;
  },

  /**
   * The organisation's components whose name may normalise to `pattern`'s name: a LIKE on the
   * lower-cased name, each `_` of the normalised name standing for its run of separators (the
   * caller keeps those whose name normalises exactly).
   */
  componentsLike(db: Executor, orgId: string, normalised: string) {
    const pattern = normalised.replace(/[!%]/g, (c) => `!${c}`).replace(/_/g, '%');
    return db
      .selectFrom('components as c')
      .select(['c.id', 'c.name', 'c.version'])
      .where('c.org', '=', sql<number>`(select number from organisations where id = ${orgId})`)
      .where(sql<boolean>`lower(c.name) like ${pattern} escape '!'`)
      .execute();
  },

  /** The organisation's confirmed mappings, by name. */
  mappingsOfOrg(db: Executor, orgId: string) {
    return db
      .selectFrom('cpe_mappings')
      .select(['name', 'cpe', 'created_at', 'created_by'])
      .where('org_id', '=', orgId)
      .orderBy('name')
      .orderBy('cpe')
      .execute();
  },

  /** Adds a mapping; false when that name already had that CPE. */
  async addMapping(
    db: Executor,
    row: { org_id: string; name: string; cpe: string; created_at: string; created_by: string },
  ): Promise<boolean> {
    const done = await db
      .insertInto('cpe_mappings')
      .values(row)
      .onConflict((oc) => oc.columns(['org_id', 'name', 'cpe']).doNothing())
      .executeTakeFirst();
    return Number(done.numInsertedOrUpdatedRows ?? 0) > 0;
  },

  async removeMapping(db: Executor, orgId: string, name: string, cpe: string): Promise<void> {
    await db.deleteFrom('cpe_mappings').where('org_id', '=', orgId).where('name', '=', name).where('cpe', '=', cpe).execute();
  },
};
