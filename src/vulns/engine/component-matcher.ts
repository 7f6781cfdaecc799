import { setImmediate as turn } from 'node:timers/promises';
import type { Database } from '../../db/index.js';
import type { OsvAffected } from '../match/osv-range.js';
import { type PurlReading, readPurl, recordAffects } from '../match/read-purl.js';
import { type ComponentReading, matchesRepo } from '../store/matches.repo.js';

// Matching, platform-wide: each component's purl is read once into a package version, and each
// distinct package version is matched once against the records that name its package; a
// changed record is matched again against the package versions of its packages only.

const CHUNK = 500;

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
  const inChunks = <T>(items: readonly T[], run: (chunk: T[]) => Promise<void>) =>
    chunked(items, run, dialect === 'postgres' ? POSTGRES_CHUNK : CHUNK);

  /** Matches `versions` against every live record naming their packages, replacing their matches. */
  async function matchVersions(versions: ReadonlyArray<{ id: number; key: string; version: string }>): Promise<void> {
    await inChunks(versions, async (chunk) => {
      const records = await matchesRepo.liveRecordsOf(db, dialect, [...new Set(chunk.map((v) => v.key))]);
      const byKey = new Map<string, Array<{ id: string; affected: OsvAffected[] }>>();
      for (const r of records) {
        byKey.set(r.package_key, [...(byKey.get(r.package_key) ?? []), { id: r.id, affected: JSON.parse(r.affected) as OsvAffected[] }]);
      }
      const matches: unknown[] = [];
      for (const v of chunk) {
        for (const record of byKey.get(v.key) ?? []) if (recordAffects(record.affected, v.key, v.version)) matches.push(v.id, record.id);
      }
      await matchesRepo.replaceMatches(
        database,
        chunk.map((v) => v.id),
        matches,
      );
    });
  }

  /** readComponents for a slice of distinct ids. */
  async function readSlice(componentIds: readonly number[]): Promise<number[]> {
    const read: Array<{ id: number; purl: string | null }> = [];
    await inChunks(componentIds, async (chunk) => {
      read.push(...(await matchesRepo.unreadAmong(db, dialect, chunk)));
    });
    if (read.length === 0) return [];
    // Read a slice per turn of the event loop: the purls of a new 10,000-component SBOM took
    // ~30 ms of it in one go, while the server answered nothing else.
    const readings: Array<{ id: number; reading: PurlReading }> = [];
    await chunked(
      read,
      async (slice) => {
        for (const c of slice) readings.push({ id: c.id, reading: readPurl(c.purl) });
      },
      READ_SLICE,
    );
    // Each package version once, however many components name it.
    const pairs = [
      ...new Map(
        readings.flatMap(({ reading }) => ('key' in reading ? [[`${reading.key}\u0000${reading.version}`, reading] as const] : [])),
      ).values(),
    ];
    const ids = new Map<string, number>();
    await inChunks(pairs, async (chunk) => {
      for (const [k, id] of await matchesRepo.ensurePackageVersions(database, chunk)) ids.set(k, id);
    });
    const known = new Set<number>();
    await inChunks([...new Set(ids.values())], async (chunk) => {
      for (const id of await matchesRepo.pointedAt(db, dialect, chunk)) known.add(id);
    });
    const fresh = [...ids]
      .filter(([, id]) => !known.has(id))
      .map(([k, id]) => ({ id, key: k.split('\u0000')[0]!, version: k.split('\u0000')[1]! }));
    // Matches first, then the components' rows: a component with a row is a matched one.
    await matchVersions(fresh);
    const rows: ComponentReading[] = readings.map(({ id, reading }) => ({
      id,
      packageVersion: 'key' in reading ? ids.get(`${reading.key}\u0000${reading.version}`)! : null,
      status: reading.status,
    }));
    await inChunks(rows, (chunk) => matchesRepo.recordReadings(database, chunk));
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
        const ids = await matchesRepo.unreadAfter(db, after, 5_000);
        if (ids.length === 0) return;
        await this.readComponents(ids);
        after = ids[ids.length - 1]!;
      }
    },

    /** Whether any OSV record is held: until one is, there is nothing to match components against. */
    anyRecords: (): Promise<boolean> => matchesRepo.anyRecord(db),

    /**
     * Matches again every package version of `packageKeys` (the packages that imported, changed or
     * withdrawn records name, before and after). Returns those package versions.
     */
    async rematchPackages(packageKeys: readonly string[]): Promise<number[]> {
      const versions: Array<{ id: number; key: string; version: string }> = [];
      await inChunks(packageKeys, async (chunk) => {
        versions.push(...(await matchesRepo.versionsOf(db, dialect, chunk)));
      });
      await matchVersions(versions);
      return versions.map((v) => v.id);
    },
  };
}

export type Matcher = ReturnType<typeof createMatcher>;
