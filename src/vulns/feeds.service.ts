import { isUtf8 } from 'node:buffer';
import { open, readFile, stat } from 'node:fs/promises';
import type { Database } from '../db/index.js';
import { AppError } from '../errors.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { readEpss, scoreDateOf, looksLikeEpss, EpssFileError } from './feeds/epss.js';
import { DEFAULT_FETCH_POLICY, type FetchPolicy, fetchFeed } from './feeds/fetch-feed.js';
import { FeedRecordError, parseJsonText } from './feeds/json-text.js';
import { kevKindOf, readKev } from './feeds/kev.js';
import { type OsvRecord, readOsvRecord } from './feeds/osv-record.js';
import { directoryRecords, fileRecord, MAX_RECORD_BYTES, SourceError, type SourceItem, zipRecords } from './feeds/osv-source.js';
import type { FindingsEngine } from './findings.service.js';
import { type Matcher, packageKeysOf } from './matcher.js';
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
  deps: { matcher: Matcher; findings: FindingsEngine; clock?: Clock; fetchPolicy?: Partial<FetchPolicy> },
) {
  const clock = deps.clock ?? systemClock;
  const { db } = database;
  const policy = { ...DEFAULT_FETCH_POLICY, ...deps.fetchPolicy };

  /** The products whose findings the import may have changed, brought up to date. */
  async function refreshProducts(productIds: Iterable<string>): Promise<{ new: number; resolved: number }> {
    const findings = { new: 0, resolved: 0 };
    for (const id of new Set(productIds)) {
      const run = await deps.findings.refreshProduct(id);
      if (run) {
        findings.new += run.added.length;
        findings.resolved += run.gone;
      }
    }
    return findings;
  }

  async function importOsv(source: string, items: AsyncIterable<SourceItem>, summary: ImportSummary): Promise<void> {
    const touchedKeys = new Set<string>();
    const touchedGroups = new Set<string>();
    let newest: string | null = null;
    let batch: OsvRecord[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const records = batch;
      batch = [];
      const heads = new Map(
        (
          await feedsRepo.heads(
            db,
            records.map((r) => r.id),
          )
        ).map((h) => [h.id, h]),
      );
      const changed = records.filter((r) => heads.get(r.id)?.digest !== r.digest);
      for (const r of records) {
        const head = heads.get(r.id);
        if (r.withdrawn) summary.withdrawn++;
        else if (!head) summary.new++;
        else if (head.digest !== r.digest) summary.changed++;
        else summary.unchanged++;
        if (r.published && (newest === null || r.published > newest)) newest = r.published;
      }
      if (changed.length === 0) return;
      const before = await feedsRepo.packagesOf(
        db,
        changed.map((r) => r.id),
      );
      const withKeys = changed.map((record) => ({ record, packageKeys: packageKeysOf(record.affected) }));
      const stored = changed.filter((r) => heads.has(r.id)).map((r) => r.id);
      await database.transaction((trx) => feedsRepo.replaceRecords(database, trx, withKeys, stored, iso(clock())));
      for (const p of before) touchedKeys.add(p.package_key);
      for (const { record, packageKeys } of withKeys) {
        for (const key of packageKeys) touchedKeys.add(key);
        touchedGroups.add(record.vulnKey);
        const old = heads.get(record.id);
        if (old) touchedGroups.add(old.vuln_key);
      }
    };
    try {
      for await (const item of items) {
        summary.records++;
        if (item.error || !item.bytes) {
          summary.skipped.push({ entry: item.entry, reason: item.error ?? 'could not be read' });
          continue;
        }
        try {
          batch.push(readOsvRecord(parseJsonText(item.bytes)));
        } catch (error) {
          if (!(error instanceof FeedRecordError)) throw error;
          // Named by its id when one can be read off its first bytes, else by its entry.
          const head = item.bytes.subarray(0, 4096);
          const id = isUtf8(item.bytes) ? /"id"\s*:\s*"([^"]{1,200})"/.exec(head.toString('utf8'))?.[1] : undefined;
          summary.skipped.push(id ? { id, reason: error.message } : { entry: item.entry, reason: error.message });
        }
        if (batch.length >= BATCH) await flush();
      }
      await flush();
    } catch (error) {
      if (error instanceof SourceError) throw new AppError('validation_failed', `${source}: ${error.message}`);
      throw error;
    }
    const at = iso(clock());
    const groups = [...touchedGroups];
    for (let i = 0; i < groups.length; i += BATCH) {
      await database.transaction((trx) => refreshGroups(database, trx, groups.slice(i, i + BATCH), at));
    }
    // Components stored while no record was held are read now (a no-op once all are read).
    await deps.matcher.readUnread();
    const versions = await deps.matcher.rematchPackages([...touchedKeys]);
    const products = new Set([
      ...(await deps.findings.productsOfPackageVersions(versions)),
      ...(await deps.findings.productsOfGroups(groups)),
    ]);
    summary.findings = await refreshProducts(products);
    await feedsRepo.recordImport(db, 'osv', source, at, newest);
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
    await feedsRepo.recordImport(db, kind, source, at, newest);
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
    await refreshEpss(db);
    await feedsRepo.recordImport(db, 'epss', source, iso(clock()), scoreDate);
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
      const items = info.isDirectory() ? directoryRecords(path) : found.json !== undefined ? fileRecord(path) : zipRecords(path);
      await importOsv(source, items, summary);
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
          await feedsRepo.saveSource(db, {
            url: input,
            kind: summary.kind,
            etag: fetched.etag,
            last_modified: fetched.lastModified,
            fetched_at: iso(clock()),
          });
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
