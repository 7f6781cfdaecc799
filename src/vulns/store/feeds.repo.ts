import { sql } from 'kysely';
import type { Database, Executor, Trx } from '../../db/index.js';
import type { PreparedRecord } from '../feeds/prepare-record.js';
import type { KevEntry, KevSource } from '../feeds/kev.js';
import type { EpssRow } from '../feeds/epss.js';
import { euvdRepo } from './euvd.repo.js';
import { nvdRepo } from './nvd.repo.js';

// The platform-wide feed tables: OSV records with the packages and aliases they name, the two
// KEV catalogues, EPSS scores and each feed's last import.

const IN_CHUNK = 500;

async function inChunks<T, R>(items: readonly T[], run: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += IN_CHUNK) out.push(...(await run(items.slice(i, i + IN_CHUNK))));
  return out;
}

export interface StoredRecordHead {
  id: string;
  digest: string;
  vuln_key: string;
  withdrawn: string | null;
}

export const feedsRepo = {
  /**
   * PostgreSQL plans from statistics that autovacuum refreshes in its own time: right after a
   * large import (or the first SBOMs) they still describe near-empty tables, and the refresh's
   * joins ran as scans of every match per product (38 s for 100 products; 15 s with fresh ones).
   * SQLite plans from its indexes alone.
   */
  async refreshStatistics(database: Database): Promise<void> {
    if (database.dialect !== 'postgres') return;
    await sql`analyze vuln_records, vuln_matches, component_packages, components, findings, vulnerabilities, nvd_records, nvd_record_products`.execute(
      database.db,
    );
  },

  /**
   * Which of these OSV ecosystems a live record names a package of: a component of any other
   * has no advisory to be matched against (coverage). A package key is its ecosystem, "/" and
   * its name, so each is one probe of the keys' index on SQLite (byte order: the keys between
   * "E/" and "E0"); PostgreSQL compares text in the database's collation, where such a range
   * need not hold every key beginning with "E/", so it asks LIKE (a scan of the keys, ~25 ms for
   * 300,000 of them, only for an ecosystem no record names).
   */
  async ecosystemsHeld(database: Database, ecosystems: readonly string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (const ecosystem of new Set(ecosystems)) {
      const named =
        database.dialect === 'postgres'
          ? sql<boolean>`p.package_key like ${`${ecosystem.replace(/[!%_]/g, (c) => `!${c}`)}/%`} escape '!'`
          : sql<boolean>`p.package_key >= ${`${ecosystem}/`} and p.package_key < ${`${ecosystem}0`}`;
      const row = await database.db
        .selectFrom('vuln_record_packages as p')
        .innerJoin('vuln_records as r', 'r.id', 'p.record_id')
        .select('p.record_id')
        .where(named)
        .where('r.withdrawn', 'is', null)
        .limit(1)
        .executeTakeFirst();
      if (row) held.add(ecosystem);
    }
    return held;
  },

  /** One catalogue's entries as stored: CVE → its data (JSON). */
  async kevData(db: Executor, source: KevSource): Promise<Map<string, string>> {
    const rows = await db.selectFrom('kev_entries').select(['cve', 'data']).where('source', '=', source).execute();
    return new Map(rows.map((e) => [e.cve, e.data]));
  },

  /** The stored EPSS scores of these CVEs. */
  async epssOf(db: Executor, cves: readonly string[]) {
    const rows = await db.selectFrom('epss_scores').select(['cve', 'score', 'percentile']).where('cve', 'in', cves).execute();
    return new Map(rows.map((r) => [r.cve, r]));
  },

  /** The stored digest, group and withdrawal of each of `ids` that is stored. */
  heads(db: Executor, ids: readonly string[]): Promise<StoredRecordHead[]> {
    return inChunks(ids, (chunk) =>
      db.selectFrom('vuln_records').select(['id', 'digest', 'vuln_key', 'withdrawn']).where('id', 'in', chunk).execute(),
    );
  },

  /** The package keys each of `ids` names now (before it is replaced). */
  packagesOf(db: Executor, ids: readonly string[]): Promise<Array<{ record_id: string; package_key: string }>> {
    return inChunks(ids, (chunk) =>
      db.selectFrom('vuln_record_packages').select(['record_id', 'package_key']).where('record_id', 'in', chunk).execute(),
    );
  },

  /** Stores `records` (new or changed), replacing what was stored under the ids in `stored`. */
  async replaceRecords(
    database: Database,
    trx: Trx,
    records: readonly PreparedRecord[],
    stored: readonly string[],
    at: string,
  ): Promise<void> {
    const ids = stored;
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const chunk = ids.slice(i, i + IN_CHUNK);
      await trx.deleteFrom('vuln_record_packages').where('record_id', 'in', chunk).execute();
      await trx.deleteFrom('vuln_aliases').where('record_id', 'in', chunk).execute();
      await trx.deleteFrom('vuln_records').where('id', 'in', chunk).execute();
    }
    const rows: unknown[] = [];
    const packages: unknown[] = [];
    const aliases: unknown[] = [];
    for (const r of records) {
      rows.push(
        r.id,
        r.vulnKey,
        r.digest,
        r.summary,
        r.details,
        JSON.stringify(r.aliases),
        r.severity,
        r.affected,
        r.references,
        r.published,
        r.modified,
        r.withdrawn,
        at,
      );
      for (const key of r.packageKeys) packages.push(key, r.id);
      // A record is found by its own id in vuln_records: only its aliases need rows here.
      for (const alias of new Set(r.aliases)) aliases.push(alias, r.id);
    }
    const columns = [
      'id',
      'vuln_key',
      'digest',
      'summary',
      'details',
      'aliases',
      'severity',
      'affected',
      'references',
      'published',
      'modified',
      'withdrawn',
      'imported_at',
    ] as const;
    await database.bulkInsert(trx, 'vuln_records', columns, rows);
    await database.bulkInsert(trx, 'vuln_record_packages', ['package_key', 'record_id'], packages);
    await database.bulkInsert(trx, 'vuln_aliases', ['alias', 'record_id'], aliases);
  },

  /** Replaces one catalogue's entries with `entries`; returns the CVEs added or removed. */
  async replaceKev(database: Database, trx: Trx, source: KevSource, entries: readonly KevEntry[]): Promise<string[]> {
    const before = await trx.selectFrom('kev_entries').select(['cve', 'data']).where('source', '=', source).execute();
    const was = new Map(before.map((e) => [e.cve, e.data]));
    await trx.deleteFrom('kev_entries').where('source', '=', source).execute();
    const values: unknown[] = [];
    const touched = new Set<string>();
    for (const e of entries) {
      const data = JSON.stringify(e.data);
      if (was.get(e.cve) !== data) touched.add(e.cve);
      was.delete(e.cve);
      values.push(e.source, e.cve, e.euvd, e.dateAdded, e.ransomware, data);
    }
    for (const cve of was.keys()) touched.add(cve);
    await database.bulkInsert(trx, 'kev_entries', ['source', 'cve', 'euvd', 'date_added', 'ransomware', 'data'], values);
    return [...touched];
  },

  /** Stores a batch of EPSS scores, replacing those of the same CVEs. */
  async upsertEpss(database: Database, trx: Trx, rows: readonly EpssRow[], scoreDate: string | null): Promise<void> {
    await trx
      .deleteFrom('epss_scores')
      .where(
        'cve',
        'in',
        rows.map((r) => r.cve),
      )
      .execute();
    const values: unknown[] = [];
    for (const r of rows) values.push(r.cve, r.score, r.percentile, scoreDate);
    await database.bulkInsert(trx, 'epss_scores', ['cve', 'score', 'percentile', 'score_date'], values);
  },

  async recordImport(db: Executor, kind: string, source: string, at: string, newest: string | null): Promise<void> {
    await db
      .insertInto('vuln_feeds')
      .values({ kind, source, last_import_at: at, newest })
      .onConflict((oc) =>
        oc.column('kind').doUpdateSet({
          source,
          last_import_at: at,
          // The newest date seen ever, not of the last file only (an older export imported later).
          newest: sql`case when ${sql.ref('vuln_feeds.newest')} is null or ${newest} > ${sql.ref('vuln_feeds.newest')} then ${newest} else ${sql.ref('vuln_feeds.newest')} end`,
        }),
      )
      .execute();
  },

  feeds(db: Executor) {
    return db.selectFrom('vuln_feeds').selectAll().orderBy('kind').execute();
  },

  /** Records held per kind of feed (withdrawn records excluded for OSV). */
  async counts(db: Executor): Promise<Record<string, number>> {
    const [osv, kev, epss, nvd, euvd] = await Promise.all([
      db
        .selectFrom('vuln_records')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('withdrawn', 'is', null)
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('kev_entries')
        .select(['source', (eb) => eb.fn.countAll<string>().as('n')])
        .groupBy('source')
        .execute(),
      db
        .selectFrom('epss_scores')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow(),
      nvdRepo.count(db),
      euvdRepo.count(db),
    ]);
    const kevOf = (source: string) => Number(kev.find((k) => k.source === source)?.n ?? 0);
    return { osv: Number(osv.n), 'cisa-kev': kevOf('cisa'), 'eu-kev': kevOf('eu'), epss: Number(epss.n), nvd, euvd };
  },

  source(db: Executor, url: string) {
    return db.selectFrom('vuln_feed_sources').selectAll().where('url', '=', url).executeTakeFirst();
  },

  async saveSource(
    db: Executor,
    row: { url: string; kind: string; etag: string | null; last_modified: string | null; fetched_at: string },
  ) {
    await db
      .insertInto('vuln_feed_sources')
      .values(row)
      .onConflict((oc) =>
        oc.column('url').doUpdateSet({ kind: row.kind, etag: row.etag, last_modified: row.last_modified, fetched_at: row.fetched_at }),
      )
      .execute();
  },
};
