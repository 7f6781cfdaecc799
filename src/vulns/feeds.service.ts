import { sql } from 'kysely';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { open, readFile, stat } from 'node:fs/promises';
import type { Database } from '../db/index.js';
import { AppError } from '../errors.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { workerUrl } from '../shared/worker-url.js';
import { readEpss, scoreDateOf, looksLikeEpss, EpssFileError } from './feeds/epss.js';
import { DEFAULT_FETCH_POLICY, type FetchPolicy, fetchFeed } from './feeds/fetch-feed.js';
import { FeedRecordError, parseJsonText } from './feeds/json-text.js';
import { kevKindOf, readKev } from './feeds/kev.js';
import { directorySource, fileSource, MAX_RECORD_BYTES, type Source, SourceError, type SourceItem, zipSource } from './feeds/osv-source.js';
import { type Prepared, type PreparedRecord, prepareRecord, type RawRecord } from './feeds/prepare-record.js';
import type { FindingsEngine } from './findings.service.js';
import type { Matcher } from './matcher.js';
import { feedsRepo } from './store/feeds.repo.js';
import { groupsNaming, refreshEpss, refreshGroups } from './store/vulnerabilities.repo.js';

// Importing feeds (vulnerabilities.md, Feeds): a file, a directory or a URL → its kind (from the
// content, or forced) → its records, streamed and stored in batches, unchanged ones skipped →
// the alias groups, matches and findings that the changes touch, brought up to date.

export const FEED_KINDS = ['osv', 'cisa-kev', 'eu-kev', 'epss'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export type Skipped = { id: string; reason: string } | { entry: string; reason: string };

export interface ImportSummary {
  kind: FeedKind;
  source: string;
  records: number;
  new: number;
  changed: number;
  unchanged: number;
  withdrawn: number;
  /** Records not stored, each named by its id when it has one, else by its entry, with why. */
  skipped: Skipped[];
  findings: { new: number; resolved: number };
  took_ms: number;
}

/** A catalogue or single record read whole is bounded (CISA's catalogue is ~1.5 MB). */
const MAX_JSON_FILE = 64 * 1024 * 1024;
const BATCH = 500;
/** From this many stored or changed records an import refreshes PostgreSQL's statistics first. */
const ANALYZE_FROM = 1_000;
/** Changed package versions and groups an import gathers before it looks up the products holding them. */
const PRODUCTS_LOOKUP_FROM = 20_000;
/**
 * Records stored between two full collections, when the process allows them (cra-admin): V8 lets
 * the old generation grow to about four times what it holds between its own, and an import's
 * records live just long enough to reach it. One every 20,000 (~20 ms each, 1–2 % of the
 * import's time) kept a 200,000-record import's peak at ~235 MiB instead of ~300.
 */
export const COLLECT_EVERY_RECORDS = 20_000;
/** From this many records a zip's are prepared in worker threads (starting them costs ~0.2 s). */
const POOL_FROM = 2_000;

/** A summary before anything is read (and of a feed that has not changed since it was last fetched). */
function emptySummary(kind: FeedKind, source: string): ImportSummary {
  return {
    kind,
    source,
    records: 0,
    new: 0,
    changed: 0,
    unchanged: 0,
    withdrawn: 0,
    skipped: [],
    findings: { new: 0, resolved: 0 },
    took_ms: 0,
  };
}

export function isFeedKind(value: string): value is FeedKind {
  return (FEED_KINDS as readonly string[]).includes(value);
}

/** The kind of a local input, from its first bytes (zip, gzip, CSV) or its JSON. */
async function detectKind(path: string): Promise<{ kind: FeedKind; json?: unknown; gzip?: boolean }> {
  const info = await stat(path);
  if (info.isDirectory()) return { kind: 'osv' };
  const handle = await open(path, 'r');
  const head = Buffer.alloc(512);
  const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
  const start = head.subarray(0, bytesRead);
  if (start[0] === 0x50 && start[1] === 0x4b) return { kind: 'osv' };
  if (start[0] === 0x1f && start[1] === 0x8b) return { kind: 'epss', gzip: true };
  if (looksLikeEpss(start.toString('latin1'))) return { kind: 'epss', gzip: false };
  if (info.size > MAX_JSON_FILE)
    throw new AppError('validation_failed', `${path}: ${info.size} bytes of JSON (at most ${MAX_JSON_FILE}) and not a zip`);
  let json: unknown;
  try {
    json = parseJsonText(await readFile(path), { depth: 64, string: MAX_RECORD_BYTES });
  } catch (error) {
    if (error instanceof FeedRecordError)
      throw new AppError('validation_failed', `${path}: ${error.message}, and not a zip, gzip or CSV feed`);
    throw error;
  }
  const kev = kevKindOf(json);
  if (kev) return { kind: kev, json };
  if (json && typeof json === 'object' && 'id' in json && ('affected' in json || 'modified' in json || 'schema_version' in json))
    return { kind: 'osv', json };
  throw new AppError('validation_failed', `${path}: not an OSV record or export, a KEV catalogue or an EPSS score file`);
}

export function createFeedsService(
  database: Database,
  deps: {
    matcher: Matcher;
    findings: FindingsEngine;
    clock?: Clock;
    fetchPolicy?: Partial<FetchPolicy>;
    /** A full garbage collection an import may pause for every `everyRecords` (COLLECT_EVERY_RECORDS) records. */
    collectGarbage?: { collect(): void; everyRecords?: number };
  },
) {
  const clock = deps.clock ?? systemClock;
  const { db } = database;
  const policy = { ...DEFAULT_FETCH_POLICY, ...deps.fetchPolicy };

  /**
   * PostgreSQL plans from statistics that autovacuum refreshes in its own time: right after a
   * large import (or the first SBOMs) they still describe near-empty tables, and the refresh's
   * joins ran as scans of every match per product (38 s for 100 products; 15 s with fresh ones).
   * SQLite plans from its indexes alone.
   */
  async function freshStatistics(): Promise<void> {
    if (database.dialect !== 'postgres') return;
    await sql`analyze vuln_records, vuln_matches, component_packages, components, findings, vulnerabilities`.execute(db);
  }

  /** The products whose findings the import may have changed, brought up to date. */
  const refreshProducts = (productIds: Iterable<string>) => deps.findings.refreshProducts(productIds);

  /**
   * Records prepared in worker threads while the main thread stores the batch before (a large
   * export: parsing, checking and digesting take as long as storing), or here for a few.
   */
  async function* prepared(source: Source): AsyncGenerator<Prepared[]> {
    const pool =
      (source.entries ?? 0) >= POOL_FROM
        ? new Piscina({
            filename: workerUrl(import.meta.url, 'feeds/record-worker'),
            maxThreads: Math.max(1, availableParallelism() - 1),
            idleTimeout: 1_000,
            // A batch's garbage is small and short-lived: a small heap keeps the import's memory bounded.
            resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 48 },
          })
        : null;
    const inFlight: Array<Promise<Prepared[]>> = [];
    const submit = (batch: SourceItem[]) => {
      const skipped = batch
        .filter((i): i is { entry: string; error: string } => 'error' in i)
        .map((i) => ({ skipped: { entry: i.entry, reason: i.error } }));
      const raw = batch.filter((i): i is RawRecord => !('error' in i));
      const work = pool
        ? (pool.run(raw, { transferList: raw.map((r) => r.data.buffer as ArrayBuffer) }) as Promise<Prepared[]>)
        : Promise.resolve(raw.map(prepareRecord));
      inFlight.push(work.then((done) => [...skipped, ...done]));
    };
    try {
      let batch: SourceItem[] = [];
      for await (const item of source.items) {
        batch.push(item);
        if (batch.length < BATCH) continue;
        submit(batch);
        batch = [];
        // Two batches ahead of the store at most: memory holds three whatever the export's size.
        if (inFlight.length >= 2) yield await inFlight.shift()!;
      }
      if (batch.length) submit(batch);
      while (inFlight.length) yield await inFlight.shift()!;
    } finally {
      await Promise.allSettled(inFlight);
      await pool?.destroy();
    }
  }

  async function importOsv(source: string, input: Source, summary: ImportSummary): Promise<void> {
    // Components stored while no record was held are read first (a no-op once all are read), so
    // each batch below matches them too.
    await deps.matcher.readUnread();
    // Each batch is stored, its alias groups rebuilt and its packages matched again before the
    // next is stored: memory holds a few batches, and only the products to refresh are kept.
    // What the batches changed; the products holding it are looked up after the last batch (or
    // whenever that much has gathered), not after each.
    const rematched = new Set<number>();
    const changedGroups = new Set<string>();
    const products = new Set<string>();
    let newest: string | null = null;
    let analysedEarly = false;
    let sinceCollection = 0;
    const store = async (records: PreparedRecord[]) => {
      const heads = new Map(
        (
          await feedsRepo.heads(
            db,
            records.map((r) => r.id),
          )
        ).map((h) => [h.id, h]),
      );
      for (const r of records) {
        const head = heads.get(r.id);
        if (r.withdrawn) summary.withdrawn++;
        else if (!head) summary.new++;
        else if (head.digest !== r.digest) summary.changed++;
        else summary.unchanged++;
        if (r.published && (newest === null || r.published > newest)) newest = r.published;
      }
      const changed = records.filter((r) => heads.get(r.id)?.digest !== r.digest);
      if (changed.length === 0) return;
      const stored = changed.filter((r) => heads.has(r.id)).map((r) => r.id);
      const before = await feedsRepo.packagesOf(db, stored);
      const keys = new Set([...before.map((p) => p.package_key), ...changed.flatMap((r) => r.packageKeys)]);
      const groups = new Set(changed.map((r) => r.vulnKey));
      for (const id of stored) groups.add(heads.get(id)!.vuln_key);
      const at = iso(clock());
      await database.transaction(async (trx) => {
        await feedsRepo.replaceRecords(database, trx, changed, stored, at);
        await refreshGroups(database, trx, [...groups], at);
      });
      for (const id of await deps.matcher.rematchPackages([...keys])) rematched.add(id);
      for (const key of groups) changedGroups.add(key);
      // Bounded: a first import of 200,000 records would otherwise hold them all until the end.
      if (rematched.size + changedGroups.size >= PRODUCTS_LOOKUP_FROM) await lookUpProducts();
    };
    const lookUpProducts = async () => {
      for (const id of await deps.findings.productsOfPackageVersions([...rematched])) products.add(id);
      for (const id of await deps.findings.productsOfGroups([...changedGroups])) products.add(id);
      rematched.clear();
      changedGroups.clear();
    };
    try {
      for await (const batch of prepared(input)) {
        const records: PreparedRecord[] = [];
        for (const p of batch) {
          summary.records++;
          if ('record' in p) {
            // The same id twice in one export: the later one stands, as it would in two imports.
            records.push(p.record);
          } else summary.skipped.push(p.skipped);
        }
        const unique = [...new Map(records.map((r) => [r.id, r])).values()];
        if (unique.length) await store(unique);
        sinceCollection += batch.length;
        if (deps.collectGarbage && sinceCollection >= (deps.collectGarbage.everyRecords ?? COLLECT_EVERY_RECORDS)) {
          sinceCollection = 0;
          deps.collectGarbage.collect();
        }
        // A large export into tables PostgreSQL has no statistics of yet: without them it looks up
        // each batch's groups by scanning every record stored so far (5,400 records/s at 200,000).
        // Statistics taken once, early, scale with the tables from then on.
        if (!analysedEarly && (input.entries ?? 0) >= ANALYZE_FROM && summary.new + summary.changed >= ANALYZE_FROM) {
          analysedEarly = true;
          await freshStatistics();
        }
      }
    } catch (error) {
      if (error instanceof SourceError) throw new AppError('validation_failed', `${source}: ${error.message}`);
      throw error;
    }
    if (!analysedEarly && summary.new + summary.changed + summary.withdrawn >= ANALYZE_FROM) await freshStatistics();
    await lookUpProducts();
    summary.findings = await refreshProducts(products);
    await database.transaction((trx) => feedsRepo.recordImport(trx, 'osv', source, iso(clock()), newest));
  }

  async function importKev(source: string, kind: 'cisa-kev' | 'eu-kev', json: unknown, summary: ImportSummary): Promise<void> {
    const { entries, skipped } = readKev(json, kind);
    summary.records = entries.length + skipped.length;
    summary.skipped.push(...skipped);
    const kevSource = kind === 'cisa-kev' ? 'cisa' : 'eu';
    const before = new Map(
      (await db.selectFrom('kev_entries').select(['cve', 'data']).where('source', '=', kevSource).execute()).map((e) => [e.cve, e.data]),
    );
    for (const e of entries) {
      const was = before.get(e.cve);
      if (was === undefined) summary.new++;
      else if (was !== JSON.stringify(e.data)) summary.changed++;
      else summary.unchanged++;
    }
    const at = iso(clock());
    const touched = await database.transaction((trx) => feedsRepo.replaceKev(database, trx, kevSource, entries));
    const groups = await groupsNaming(db, touched);
    for (let i = 0; i < groups.length; i += BATCH) {
      await database.transaction((trx) => refreshGroups(database, trx, groups.slice(i, i + BATCH), at));
    }
    summary.findings = await refreshProducts(await deps.findings.productsOfGroups(groups));
    const newest = entries.reduce<string | null>(
      (max, e) => (e.dateAdded && (max === null || e.dateAdded > max) ? e.dateAdded : max),
      null,
    );
    await database.transaction((trx) => feedsRepo.recordImport(trx, kind, source, at, newest));
  }

  async function importEpss(source: string, path: string, gzip: boolean, summary: ImportSummary): Promise<void> {
    let scoreDate: string | null = null;
    try {
      for await (const rows of readEpss(path, gzip, (line) => (scoreDate ??= scoreDateOf(line)), summary.skipped)) {
        summary.records += rows.length;
        const known = new Map(
          (
            await db
              .selectFrom('epss_scores')
              .select(['cve', 'score', 'percentile'])
              .where(
                'cve',
                'in',
                rows.map((r) => r.cve),
              )
              .execute()
          ).map((r) => [r.cve, r]),
        );
        for (const r of rows) {
          const was = known.get(r.cve);
          if (!was) summary.new++;
          else if (was.score !== r.score || was.percentile !== r.percentile) summary.changed++;
          else summary.unchanged++;
        }
        await database.transaction((trx) => feedsRepo.upsertEpss(database, trx, rows, scoreDate));
      }
    } catch (error) {
      if (error instanceof EpssFileError || (error as NodeJS.ErrnoException).code === 'Z_DATA_ERROR') {
        throw new AppError('validation_failed', `${source}: ${(error as Error).message}`);
      }
      throw error;
    }
    summary.records += summary.skipped.length;
    await database.transaction((trx) => refreshEpss(trx));
    await database.transaction((trx) => feedsRepo.recordImport(trx, 'epss', source, iso(clock()), scoreDate));
  }

  /** One local input (file or directory) of a kind found or forced. */
  async function importPath(path: string, source: string, forced: FeedKind | undefined): Promise<ImportSummary> {
    const started = performance.now();
    const found = await detectKind(path).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError('not_found', `${source}: no such file or directory`);
      throw error;
    });
    const kind = forced ?? found.kind;
    if (forced && forced !== found.kind) {
      throw new AppError('validation_failed', `${source} reads as ${found.kind}, not ${forced}`);
    }
    const summary = emptySummary(kind, source);
    if (kind === 'osv') {
      const info = await stat(path);
      const input = info.isDirectory() ? await directorySource(path) : found.json !== undefined ? fileSource(path) : await zipSource(path);
      await importOsv(source, input, summary);
    } else if (kind === 'epss') await importEpss(source, path, found.gzip ?? false, summary);
    else await importKev(source, kind, found.json, summary);
    summary.took_ms = Math.round(performance.now() - started);
    return summary;
  }

  return {
    /**
     * Imports each input (a file, a directory or an http(s) URL) in turn; a URL whose feed has not
     * changed since the last fetch (304) is reported with no records.
     */
    async importFeeds(inputs: readonly string[], options: { kind?: string } = {}): Promise<ImportSummary[]> {
      if (options.kind !== undefined && !isFeedKind(options.kind)) {
        throw new AppError('validation_failed', `--kind must be one of ${FEED_KINDS.join(', ')}`);
      }
      const forced = options.kind as FeedKind | undefined;
      const summaries: ImportSummary[] = [];
      for (const input of inputs) {
        if (!/^https?:\/\//i.test(input)) {
          summaries.push(await importPath(input, input, forced));
          continue;
        }
        const known = await feedsRepo.source(db, input);
        const fetched = await fetchFeed(input, policy, known ? { etag: known.etag, lastModified: known.last_modified } : null);
        if (fetched.status === 'unchanged') {
          const kind = forced ?? (known?.kind as FeedKind) ?? 'osv';
          summaries.push(emptySummary(kind, input));
          continue;
        }
        try {
          const summary = await importPath(fetched.path, input, forced);
          await database.transaction((trx) =>
            feedsRepo.saveSource(trx, {
              url: input,
              kind: summary.kind,
              etag: fetched.etag,
              last_modified: fetched.lastModified,
              fetched_at: iso(clock()),
            }),
          );
          summaries.push(summary);
        } finally {
          await fetched.cleanup();
        }
      }
      return summaries;
    },

    /** Each feed: records held, last import, source, newest date (`vuln feeds`). */
    async feeds() {
      const [rows, counts] = await Promise.all([feedsRepo.feeds(db), feedsRepo.counts(db)]);
      return FEED_KINDS.map((kind) => {
        const row = rows.find((r) => r.kind === kind);
        return {
          kind,
          records: counts[kind] ?? 0,
          last_import_at: row?.last_import_at ?? null,
          source: row?.source ?? null,
          newest: row?.newest ?? null,
        };
      });
    },
  };
}

export type FeedsService = ReturnType<typeof createFeedsService>;
