import { setImmediate as turn } from 'node:timers/promises';
import { sql } from 'kysely';
import { type Database, inList } from '../db/index.js';
import type { OsvAffectedEntry } from './feeds/osv-record.js';
import { affects } from './match/osv-range.js';
import { packageKeysOf } from './match/record-packages.js';
import { packageOfOsv, packageOfPurl } from './match/purl.js';

export { packageKeysOf };
import { orderOf } from './match/version-order.js';
import { purlColumn } from '../sbom/store/components.repo.js';

// Matching, platform-wide: each component's purl is read once into a package version, and each
// distinct package version is matched once against the records that name its package; a
// changed record is matched again against the package versions of its packages only.

const CHUNK = 500;

/** What a component's purl says for matching: a package version, or why it has none (coverage). */
export function readPurl(purl: string | null): { key: string; version: string; ecosystem: string; status: string } | { status: string } {
  if (!purl) return { status: 'no_purl' };
  const read = packageOfPurl(purl);
  if ('unmatchable' in read) return { status: read.unmatchable };
  if (read.version === null) return { status: 'no_version' };
  const order = orderOf(read.ecosystem);
  // A version the order cannot parse still matches exact `versions[]` entries, never a range.
  return {
    key: read.key,
    version: read.version,
    ecosystem: read.ecosystem,
    status: order?.valid(read.version) ? 'matchable' : 'version_unparsable',
  };
}

/** Whether a record's affected entries put `version` of the package `key` in range. */
export function recordAffects(affected: readonly OsvAffectedEntry[], key: string, version: string): boolean {
  for (const entry of affected) {
    const pkg = entry.package && packageOfOsv(entry.package);
    if (pkg?.key === key && affects(entry, version, orderOf(pkg.ecosystem))) return true;
  }
  return false;
}

/**
 * Items a statement on PostgreSQL: each statement is a round trip, and with the items bound as
 * one array (inList) a lookup of 10,000 costs little more than one of 500. SQLite runs in the
 * process, where a long statement would hold the event loop instead.
 */
export const POSTGRES_CHUNK = 10_000;

/** Purls read per turn of the event loop (~1–3 ms). */
const READ_SLICE = 1_000;

/** Components read, matched and recorded at a time (readComponents). */
export const COMPONENT_SLICE = 5_000;

async function chunked<T>(items: ArrayLike<T>, run: (chunk: T[]) => Promise<void>, size: number): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    await run(Array.prototype.slice.call(items, i, i + size) as T[]);
    // Long runs give the event loop a turn between chunks: requests keep being served.
    await turn();
  }
}

export function createMatcher(database: Database) {
  const { db, dialect } = database;
  const postgres = dialect === 'postgres';
  const size = postgres ? POSTGRES_CHUNK : CHUNK;
  const inChunks = <T>(items: readonly T[], run: (chunk: T[]) => Promise<void>) => chunked(items, run, size);

  /** The package versions of `pairs`, made where missing; → id per `key\0version`. */
  async function packageVersionIds(
    pairs: ReadonlyArray<{ key: string; version: string; ecosystem: string }>,
  ): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    const wanted = new Map(pairs.map((p) => [`${p.key}\u0000${p.version}`, p]));
    // Reads the package versions of these packages, keeping the ids of the wanted ones.
    async function readIds(of: ReadonlyArray<{ key: string }>): Promise<void> {
      const rows = await db
        .selectFrom('package_versions')
        .select(['id', 'package_key', 'version'])
        .where(inList(dialect, 'package_key', [...new Set(of.map((p) => p.key))], 'text'))
        .execute();
      for (const row of rows) {
        const k = `${row.package_key}\u0000${row.version}`;
        if (wanted.has(k)) ids.set(k, Number(row.id));
      }
    }
    await inChunks([...wanted.values()], async (chunk) => {
      if (postgres) {
        // One statement: the missing ones made, then every wanted one's id (made by this
        // statement, or before it; one made meanwhile by another instance is read after).
        const rows = await sql<{ id: number; package_key: string; version: string }>`
          with wanted (package_key, version, ecosystem) as (
            select * from unnest(${chunk.map((p) => p.key)}::text[], ${chunk.map((p) => p.version)}::text[], ${chunk.map((p) => p.ecosystem)}::text[])
          ), made as (
            insert into package_versions (package_key, version, ecosystem) select * from wanted
            on conflict (package_key, version) do nothing returning id, package_key, version
          )
          select id, package_key, version from made
          union all
          select p.id, p.package_key, p.version from package_versions p join wanted w on w.package_key = p.package_key and w.version = p.version`.execute(
          db,
        );
        for (const row of rows.rows) ids.set(`${row.package_key}\u0000${row.version}`, Number(row.id));
        const late = chunk.filter((p) => !ids.has(`${p.key}\u0000${p.version}`));
        if (late.length > 0) await readIds(late);
        return;
      }
      // In a transaction, which waits its turn behind the SBOM row writer's (db/sqlite.ts).
      await database.transaction((trx) =>
        trx
          .insertInto('package_versions')
          .values(chunk.map((p) => ({ package_key: p.key, version: p.version, ecosystem: p.ecosystem })))
          .onConflict((oc) => oc.columns(['package_key', 'version']).doNothing())
          .execute(),
      );
      await readIds(chunk);
    });
    return ids;
  }

  /** Matches `versions` against every live record naming their packages, replacing their matches. */
  async function matchVersions(versions: ReadonlyArray<{ id: number; key: string; version: string }>): Promise<void> {
    await inChunks(versions, async (chunk) => {
      const keys = [...new Set(chunk.map((v) => v.key))];
      const records = await db
        .selectFrom('vuln_record_packages as p')
        .innerJoin('vuln_records as r', 'r.id', 'p.record_id')
        .select(['p.package_key', 'r.id', 'r.affected'])
        .where(inList(dialect, 'p.package_key', keys, 'text'))
        .where('r.withdrawn', 'is', null)
        .execute();
      const byKey = new Map<string, Array<{ id: string; affected: OsvAffectedEntry[] }>>();
      for (const r of records) {
        byKey.set(r.package_key, [
          ...(byKey.get(r.package_key) ?? []),
          { id: r.id, affected: JSON.parse(r.affected) as OsvAffectedEntry[] },
        ]);
      }
      const matches: unknown[] = [];
      for (const v of chunk) {
        for (const record of byKey.get(v.key) ?? []) if (recordAffects(record.affected, v.key, v.version)) matches.push(v.id, record.id);
      }
      await database.transaction(async (trx) => {
        await trx
          .deleteFrom('vuln_matches')
          .where(
            inList(
              dialect,
              'package_version_id',
              chunk.map((v) => v.id),
              'integer',
            ),
          )
          .execute();
        await database.bulkInsert(trx, 'vuln_matches', ['package_version_id', 'record_id'], matches);
      });
    });
  }

  /** readComponents for a slice of distinct ids. */
  async function readSlice(componentIds: readonly number[]): Promise<number[]> {
    const read: Array<{ id: number; purl: string | null }> = [];
    await inChunks(componentIds, async (chunk) => {
      const rows = await db
        .selectFrom('components as c')
        .leftJoin('component_packages as cp', 'cp.component_id', 'c.id')
        .select(['c.id', purlColumn('c').as('purl')])
        .where(inList(dialect, 'c.id', chunk, 'integer'))
        .where('cp.component_id', 'is', null)
        .execute();
      for (const row of rows) read.push({ id: Number(row.id), purl: row.purl });
    });
    if (read.length === 0) return [];
    // Read a slice per turn of the event loop: the purls of a new 10,000-component SBOM took
    // ~30 ms of it in one go, while the server answered nothing else.
    const readings: Array<{ id: number; reading: ReturnType<typeof readPurl> }> = [];
    await chunked(
      read,
      async (slice) => {
        for (const c of slice) readings.push({ id: c.id, reading: readPurl(c.purl) });
      },
      READ_SLICE,
    );
    const pairs = readings.flatMap(({ reading }) => ('key' in reading ? [reading] : []));
    const ids = await packageVersionIds(pairs);
    const known = await matchedAlready([...new Set(ids.values())]);
    const fresh = [...ids]
      .filter(([, id]) => !known.has(id))
      .map(([k, id]) => ({ id, key: k.split('\u0000')[0]!, version: k.split('\u0000')[1]! }));
    // Matches first, then the components' rows: a component with a row is a matched one.
    await matchVersions(fresh);
    const rows = readings.map(({ id, reading }) => ({
      id,
      packageVersion: 'key' in reading ? ids.get(`${reading.key}\u0000${reading.version}`)! : null,
      status: reading.status,
    }));
    await inChunks(rows, (chunk) => {
      if (postgres) {
        // Another instance may have read some of them meanwhile: theirs stand.
        return sql`
            insert into component_packages (component_id, package_version_id, status)
            select * from unnest(${chunk.map((r) => r.id)}::integer[], ${chunk.map((r) => r.packageVersion)}::integer[], ${chunk.map((r) => r.status)}::text[])
            on conflict (component_id) do nothing`
          .execute(db)
          .then(() => undefined);
      }
      return database.transaction(async (trx) => {
        // Another instance may have read some of them meanwhile: theirs stand.
        const done = await trx
          .selectFrom('component_packages')
          .select('component_id')
          .where(
            'component_id',
            'in',
            chunk.map((r) => r.id),
          )
          .execute();
        const skip = new Set(done.map((d) => Number(d.component_id)));
        const values = chunk.filter((r) => !skip.has(r.id)).flatMap((r) => [r.id, r.packageVersion, r.status]);
        await database.bulkInsert(trx, 'component_packages', ['component_id', 'package_version_id', 'status'], values);
      });
    });
    return [...new Set(ids.values())];
  }

  return {
    /**
     * Reads the purls of the components among `componentIds` not read yet (an id may be listed
     * twice), and matches the package versions that had never been matched. Returns the package
     * versions of the read components (new or not). A slice of COMPONENT_SLICE at a time, each
     * read, matched and recorded before the next: every loop over the components of a
     * 100,000-component revision held the event loop 50–65 ms when it ran over all of them.
     * A component listed again in a later slice has been read by then, and is not read again.
     */
    async readComponents(componentIds: ArrayLike<number>): Promise<number[]> {
      const versions = new Set<number>();
      await chunked(
        componentIds,
        async (slice) => {
          for (const version of await readSlice([...new Set(slice)])) versions.add(version);
        },
        COMPONENT_SLICE,
      );
      return [...versions];
    },

    /**
     * Reads every component not read yet (those stored while no OSV record was held, or whose
     * reading an instance stopped before finishing), in id order, a slice at a time.
     */
    async readUnread(): Promise<void> {
      for (let after = 0; ; ) {
        const rows = await db
          .selectFrom('components as c')
          .leftJoin('component_packages as cp', 'cp.component_id', 'c.id')
          .select('c.id')
          .where('c.id', '>', after)
          .where('cp.component_id', 'is', null)
          .orderBy('c.id')
          .limit(5_000)
          .execute();
        if (rows.length === 0) return;
        const ids = rows.map((r) => Number(r.id));
        await this.readComponents(ids);
        after = ids[ids.length - 1]!;
      }
    },

    /** Whether any OSV record is held: until one is, there is nothing to match components against. */
    async anyRecords(): Promise<boolean> {
      return (await db.selectFrom('vuln_records').select('id').limit(1).executeTakeFirst()) !== undefined;
    },

    /**
     * Matches again every package version of `packageKeys` (the packages that imported, changed or
     * withdrawn records name, before and after). Returns those package versions.
     */
    async rematchPackages(packageKeys: readonly string[]): Promise<number[]> {
      const versions: Array<{ id: number; key: string; version: string }> = [];
      await inChunks(packageKeys, async (chunk) => {
        const rows = await db
          .selectFrom('package_versions')
          .select(['id', 'package_key', 'version'])
          .where(inList(dialect, 'package_key', chunk, 'text'))
          .execute();
        for (const r of rows) versions.push({ id: Number(r.id), key: r.package_key, version: r.version });
      });
      await matchVersions(versions);
      return versions.map((v) => v.id);
    },
  };

  async function matchedAlready(ids: readonly number[]): Promise<Set<number>> {
    // A package version some component already points at has been matched (and is re-matched
    // whenever a record of its package changes).
    const known = new Set<number>();
    await inChunks(ids, async (chunk) => {
      const rows = await db
        .selectFrom('component_packages')
        .select('package_version_id')
        .distinct()
        .where(inList(dialect, 'package_version_id', chunk, 'integer'))
        .execute();
      for (const r of rows) if (r.package_version_id !== null) known.add(Number(r.package_version_id));
    });
    return known;
  }
}

export type Matcher = ReturnType<typeof createMatcher>;
