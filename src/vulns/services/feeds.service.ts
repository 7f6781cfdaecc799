import { stat } from 'node:fs/promises';
import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { type Clock, iso, systemClock } from '../../shared/time.js';
import type { FindingsEngine } from '../engine/findings-engine.js';
import type { Matcher } from '../engine/component-matcher.js';
import { detectKind } from '../feeds/detect-kind.js';
import { EpssFileError, readEpss, scoreDateOf } from '../feeds/epss.js';
import { DEFAULT_FETCH_POLICY, type FetchPolicy, fetchFeed } from '../feeds/fetch-feed.js';
import { readEuvdExploited } from '../feeds/euvd.js';
import { readKev } from '../feeds/kev.js';
import { isNvdApi } from '../feeds/nvd-api.js';
import { NvdSourceError } from '../feeds/nvd-source.js';
import { directorySource, fileSource, type Source, SourceError, zipSource } from '../feeds/osv-source.js';
import type { PreparedRecord } from '../feeds/prepare-record.js';
import { createRecordPool, type RecordPool } from '../feeds/prepared-records.js';
import { feedsRepo } from '../store/feeds.repo.js';
import { later, tallyBatch } from './import-tally.js';
import { importEuvdMapping, importExploitedList, type ListImportDeps } from './kev-import.js';
import { importNvd, importNvdApi, type NvdImportDeps, nvdSourceOf } from './nvd-import.js';
import { refreshEpss, refreshGroups } from '../store/vulnerabilities.repo.js';
import { FEED_KINDS, type FeedKind, type ImportProgress, type ImportSummary, isFeedKind } from '../vulns.schemas.js';

type Progress = (progress: ImportProgress) => void;

// Importing feeds (vulnerabilities.md, Feeds): a file, a directory or a URL → its kind (from the
// content, or forced) → its records, streamed and stored in batches, unchanged ones skipped →
// the alias groups, matches and findings that the changes touch, brought up to date.

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

export function createFeedsService(
  database: Database,
  deps: {
    matcher: Matcher;
    findings: FindingsEngine;
    clock?: Clock;
    fetchPolicy?: Partial<FetchPolicy>;
    /** A full garbage collection an import may pause for every `everyRecords` (COLLECT_EVERY_RECORDS) records. */
    collectGarbage?: { collect(): void; everyRecords?: number };
    /** Told the CVEs whose NVD records each stored batch changed, before products are refreshed. */
    nvdChanged?: (cves: readonly string[]) => Promise<void>;
    /** The worker threads that prepare records (the composition root's; else one of its own, whose idle thread keeps no process alive). */
    records?: RecordPool;
  },
) {
  const clock = deps.clock ?? systemClock;
  const { db } = database;
  const policy = { ...DEFAULT_FETCH_POLICY, ...deps.fetchPolicy };

  const records = deps.records ?? createRecordPool();
  const nvdDeps: NvdImportDeps = {
    database,
    clock,
    findings: deps.findings,
    records,
    nvdChanged: deps.nvdChanged,
    collectGarbage: deps.collectGarbage && { everyRecords: COLLECT_EVERY_RECORDS, ...deps.collectGarbage },
  };
  const listDeps: ListImportDeps = { database, clock, findings: deps.findings };

  /** The products whose findings the import may have changed, brought up to date. */
  const refreshProducts = (productIds: Iterable<string>) => deps.findings.refreshProducts(productIds);

  async function importOsv(source: string, input: Source, summary: ImportSummary, onProgress?: Progress): Promise<void> {
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
      const tally = tallyBatch(records, heads, summary);
      newest = later(newest, tally.newest);
      const { changed, stored } = tally;
      if (changed.length === 0) return;
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
      for await (const batch of records.osv(input)) {
        const records: PreparedRecord[] = [];
        for (const p of batch) {
          summary.records++;
          if ('record' in p) {
            // The same id twice in one export: the later one stands, as it would in two imports.
            records.push(p.record);
          } else summary.skipped.push(p.skipped);
        }
        onProgress?.({ source, records: summary.records, done: summary.records, size: input.entries });
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
          await feedsRepo.refreshStatistics(database);
        }
      }
    } catch (error) {
      if (error instanceof SourceError) throw new AppError('validation_failed', `${source}: ${error.message}`);
      throw error;
    }
    if (!analysedEarly && summary.new + summary.changed + summary.withdrawn >= ANALYZE_FROM) await feedsRepo.refreshStatistics(database);
    await lookUpProducts();
    summary.findings = await refreshProducts(products);
    await database.transaction((trx) => feedsRepo.recordImport(trx, 'osv', source, iso(clock()), newest));
  }

  async function importEpss(source: string, path: string, gzip: boolean, summary: ImportSummary): Promise<void> {
    let scoreDate: string | null = null;
    try {
      for await (const rows of readEpss(path, gzip, (line) => (scoreDate ??= scoreDateOf(line)), summary.skipped)) {
        summary.records += rows.length;
        const known = await feedsRepo.epssOf(
          db,
          rows.map((r) => r.cve),
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
  async function importPath(path: string, source: string, forced: FeedKind | undefined, onProgress?: Progress): Promise<ImportSummary> {
    const started = performance.now();
    const found = await detectKind(path, forced).catch((error: unknown) => {
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
      await importOsv(source, input, summary, onProgress);
    } else if (kind === 'nvd') {
      try {
        await importNvd({ ...nvdDeps, onProgress }, source, await nvdSourceOf(path, found), summary);
      } catch (error) {
        if (error instanceof NvdSourceError) throw new AppError('validation_failed', `${source}: ${error.message}`);
        throw error;
      }
    } else if (kind === 'epss') await importEpss(source, path, found.gzip ?? false, summary);
    else if (kind === 'euvd' && found.euvd === 'mapping') await importEuvdMapping(listDeps, source, path, summary, onProgress);
    else if (kind === 'euvd') {
      const read = readEuvdExploited(found.json as unknown[]);
      await importExploitedList(listDeps, { source, kind, kevSource: 'euvd' }, read, summary);
    } else {
      const read = readKev(found.json, kind);
      await importExploitedList(listDeps, { source, kind, kevSource: kind === 'cisa-kev' ? 'cisa' : 'eu' }, read, summary);
    }
    summary.took_ms = Math.round(performance.now() - started);
    return summary;
  }

  return {
    /**
     * Imports each input (a file, a directory or an http(s) URL) in turn; a URL whose feed has not
     * changed since the last fetch (304) is reported with no records.
     */
    async importFeeds(inputs: readonly string[], options: { kind?: string; onProgress?: Progress } = {}): Promise<ImportSummary[]> {
      const { onProgress } = options;
      if (options.kind !== undefined && !isFeedKind(options.kind)) {
        const message = `kind must be one of ${FEED_KINDS.join(', ')}`;
        throw new AppError('validation_failed', message, [{ path: 'kind', message }]);
      }
      const forced = options.kind as FeedKind | undefined;
      const summaries: ImportSummary[] = [];
      for (const input of inputs) {
        if (!/^https?:\/\//i.test(input)) {
          summaries.push(await importPath(input, input, forced, onProgress));
          continue;
        }
        if (isNvdApi(input) && (forced === undefined || forced === 'nvd')) {
          const started = performance.now();
          const summary = emptySummary('nvd', input);
          await importNvdApi({ ...nvdDeps, onProgress }, policy, input, summary);
          summaries.push({ ...summary, took_ms: Math.round(performance.now() - started) });
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
          const summary = await importPath(fetched.path, input, forced, onProgress);
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
