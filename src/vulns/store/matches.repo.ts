import { sql } from 'kysely';
import { type Database, type DialectName, type Executor, inList } from '../../db/index.js';
import { purlColumn } from '../../sbom/store/components.repo.js';

// Matching's tables, platform-wide: each component read once into its package version
// (`component_packages`), each package version made once (`package_versions`) and matched
// against the records naming its package (`vuln_matches`).

/** A package version as the matcher reads it from a purl. */
export interface PackageVersionOf {
  key: string;
  version: string;
  ecosystem: string;
}

/** What reading a component's purl gave: its package version (none when unmatchable) and status. */
export interface ComponentReading {
  id: number;
  packageVersion: number | null;
  status: string;
}

const pairKey = (key: string, version: string) => `${key}\u0000${version}`;

/** The ids of the package versions among `packageKeys`' that `wanted` (by `key\0version`) names. */
async function idsOf(
  db: Executor,
  dialect: DialectName,
  packageKeys: readonly string[],
  wanted: ReadonlySet<string>,
  out: Map<string, number>,
) {
  const rows = await db
    .selectFrom('package_versions')
    .select(['id', 'package_key', 'version'])
    .where(inList(dialect, 'package_key', [...new Set(packageKeys)], 'text'))
    .execute();
  for (const row of rows) {
    const k = pairKey(row.package_key, row.version);
    if (wanted.has(k)) out.set(k, Number(row.id));
  }
}

export const matchesRepo = {
  /** The package versions of `pairs`, made where missing: id per `key\0version`. */
  async ensurePackageVersions(database: Database, pairs: readonly PackageVersionOf[]): Promise<Map<string, number>> {
    const { db, dialect } = database;
    const ids = new Map<string, number>();
    const wanted = new Set(pairs.map((p) => pairKey(p.key, p.version)));
    if (dialect === 'postgres') {
      // One statement: the missing ones made, then every wanted one's id (made by this
      // statement, or before it; one made meanwhile by another instance is read after).
      const rows = await sql<{ id: number; package_key: string; version: string }>`
        with wanted (package_key, version, ecosystem) as (
          select * from unnest(${pairs.map((p) => p.key)}::text[], ${pairs.map((p) => p.version)}::text[], ${pairs.map((p) => p.ecosystem)}::text[])
        ), made as (
          insert into package_versions (package_key, version, ecosystem) select * from wanted
          on conflict (package_key, version) do nothing returning id, package_key, version
        )
        select id, package_key, version from made
        union all
        select p.id, p.package_key, p.version from package_versions p join wanted w on w.package_key = p.package_key and w.version = p.version`.execute(
        db,
      );
      for (const row of rows.rows) ids.set(pairKey(row.package_key, row.version), Number(row.id));
      const late = pairs.filter((p) => !ids.has(pairKey(p.key, p.version)));
      if (late.length > 0)
        await idsOf(
          db,
          dialect,
          late.map((p) => p.key),
          wanted,
          ids,
        );
      return ids;
    }
    // In a transaction, which waits its turn behind the SBOM row writer's (db/sqlite.ts).
    await database.transaction((trx) =>
      trx
        .insertInto('package_versions')
        .values(pairs.map((p) => ({ package_key: p.key, version: p.version, ecosystem: p.ecosystem })))
        .onConflict((oc) => oc.columns(['package_key', 'version']).doNothing())
        .execute(),
    );
    await idsOf(
      db,
      dialect,
      pairs.map((p) => p.key),
      wanted,
      ids,
    );
    return ids;
  },

  /** The live records naming any of `packageKeys`, with their affected entries as stored (JSON). */
  liveRecordsOf(db: Executor, dialect: DialectName, packageKeys: readonly string[]) {
    return db
      .selectFrom('vuln_record_packages as p')
      .innerJoin('vuln_records as r', 'r.id', 'p.record_id')
      .select(['p.package_key', 'r.id', 'r.affected'])
      .where(inList(dialect, 'p.package_key', packageKeys, 'text'))
      .where('r.withdrawn', 'is', null)
      .execute();
  },

  /** Replaces the matches of these package versions with `matches` (package version id, record id, …). */
  async replaceMatches(database: Database, packageVersionIds: readonly number[], matches: readonly unknown[]): Promise<void> {
    await database.transaction(async (trx) => {
      await trx
        .deleteFrom('vuln_matches')
        .where(inList(database.dialect, 'package_version_id', packageVersionIds, 'integer'))
        .execute();
      await database.bulkInsert(trx, 'vuln_matches', ['package_version_id', 'record_id'], matches);
    });
  },

  /** The components among `ids` not read yet, with their purls. */
  async unreadAmong(db: Executor, dialect: DialectName, ids: readonly number[]): Promise<Array<{ id: number; purl: string | null }>> {
    const rows = await db
      .selectFrom('components as c')
      .leftJoin('component_packages as cp', 'cp.component_id', 'c.id')
      .select(['c.id', purlColumn('c').as('purl')])
      .where(inList(dialect, 'c.id', ids, 'integer'))
      .where('cp.component_id', 'is', null)
      .execute();
    return rows.map((row) => ({ id: Number(row.id), purl: row.purl }));
  },

  /** Up to `limit` components not read yet, after the id `after`, in id order. */
  async unreadAfter(db: Executor, after: number, limit: number): Promise<number[]> {
    const rows = await db
      .selectFrom('components as c')
      .leftJoin('component_packages as cp', 'cp.component_id', 'c.id')
      .select('c.id')
      .where('c.id', '>', after)
      .where('cp.component_id', 'is', null)
      .orderBy('c.id')
      .limit(limit)
      .execute();
    return rows.map((r) => Number(r.id));
  },

  /** Records what reading these components gave; a component another instance read meanwhile keeps its row. */
  async recordReadings(database: Database, rows: readonly ComponentReading[]): Promise<void> {
    if (database.dialect === 'postgres') {
      await sql`
          insert into component_packages (component_id, package_version_id, status)
          select * from unnest(${rows.map((r) => r.id)}::integer[], ${rows.map((r) => r.packageVersion)}::integer[], ${rows.map((r) => r.status)}::text[])
          on conflict (component_id) do nothing`.execute(database.db);
      return;
    }
    await database.transaction(async (trx) => {
      const done = await trx
        .selectFrom('component_packages')
        .select('component_id')
        .where(
          'component_id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      const skip = new Set(done.map((d) => Number(d.component_id)));
      const values = rows.filter((r) => !skip.has(r.id)).flatMap((r) => [r.id, r.packageVersion, r.status]);
      await database.bulkInsert(trx, 'component_packages', ['component_id', 'package_version_id', 'status'], values);
    });
  },

  /**
   * The package versions among `ids` that some component points at: those have been matched (and
   * are matched again whenever a record of their package changes).
   */
  async pointedAt(db: Executor, dialect: DialectName, ids: readonly number[]): Promise<number[]> {
    const rows = await db
      .selectFrom('component_packages')
      .select('package_version_id')
      .distinct()
      .where(inList(dialect, 'package_version_id', ids, 'integer'))
      .execute();
    return rows.flatMap((r) => (r.package_version_id === null ? [] : [Number(r.package_version_id)]));
  },

  /** Every package version of `packageKeys`. */
  async versionsOf(db: Executor, dialect: DialectName, packageKeys: readonly string[]) {
    const rows = await db
      .selectFrom('package_versions')
      .select(['id', 'package_key', 'version'])
      .where(inList(dialect, 'package_key', packageKeys, 'text'))
      .execute();
    return rows.map((r) => ({ id: Number(r.id), key: r.package_key, version: r.version }));
  },

  /** Whether any OSV record is held: until one is, there is nothing to match components against. */
  async anyRecord(db: Executor): Promise<boolean> {
    return (await db.selectFrom('vuln_records').select('id').limit(1).executeTakeFirst()) !== undefined;
  },
};
