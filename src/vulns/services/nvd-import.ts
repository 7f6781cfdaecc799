import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { type Clock, iso } from '../../shared/time.js';
import type { FindingsEngine } from '../engine/findings-engine.js';
import type { DetectedKind } from '../feeds/detect-kind.js';
import type { FetchPolicy } from '../feeds/fetch-feed.js';
import { nvdApiSource } from '../feeds/nvd-api.js';
import {
  type NvdSource,
  NvdSourceError,
  nvdDirectorySource,
  nvdFeedSource,
  nvdRecordFileSource,
  nvdZipSource,
} from '../feeds/nvd-source.js';
import type { PreparedNvdRecord } from '../feeds/prepare-nvd.js';
import type { RecordPool } from '../feeds/prepared-records.js';
import { feedsRepo } from '../store/feeds.repo.js';
import { findingsRepo } from '../store/findings.repo.js';
import { nvdRepo, productKeysOf } from '../store/nvd.repo.js';
import { refreshGroups } from '../store/vulnerabilities.repo.js';
import type { ImportProgress, ImportSummary } from '../vulns.schemas.js';
import { later, tallyBatch } from './import-tally.js';

// Importing NVD records (firmware.md, Feeds) under the rules of the OSV import: streamed in
// batches, an unchanged record (same digest) skipped, each batch stored with its alias groups
// rebuilt (an NVD record's group is its CVE id), and only the products that a changed record can
// concern refreshed: those holding a component matched under one of the record's vendor:product
// keys (as it was or is now), and those with findings of its CVE.

/** Changed product keys and CVEs gathered before the products holding them are looked up. */
const PRODUCTS_LOOKUP_FROM = 20_000;

export interface NvdImportDeps {
  database: Database;
  clock: Clock;
  findings: Pick<FindingsEngine, 'refreshProducts' | 'productsOfGroups'>;
  /** Where records are parsed, checked and digested (worker threads for a large input). */
  records: Pick<RecordPool, 'nvd'>;
  /**
   * Told the CVEs of each stored batch whose records are new, changed or withdrawn, before the
   * products they concern are refreshed (the CPE matcher's hook; see also `changedCves`).
   */
  nvdChanged?: (cves: readonly string[]) => Promise<void>;
  /** A full garbage collection the import may pause for every `everyRecords` records (feeds.service.ts, COLLECT_EVERY_RECORDS). */
  collectGarbage?: { collect(): void; everyRecords: number };
  /** Told how far the import has got, record by record (a terminal's progress line). */
  onProgress?: (progress: ImportProgress) => void;
}

/** What an import changed, for the engine: every CVE whose NVD record is new, changed or withdrawn. */
export interface NvdImportResult {
  changedCves: Set<string>;
}

/**
 * The NVD's CVE API as a feed: everything on the first import from `url`, then what was modified
 * since the last one began; the source is recorded only once every page has been imported.
 */
export async function importNvdApi(deps: NvdImportDeps, policy: FetchPolicy, url: string, summary: ImportSummary): Promise<void> {
  const { db } = deps.database;
  const known = await feedsRepo.source(db, url);
  const until = deps.clock().getTime();
  const since = known?.fetched_at ? Date.parse(known.fetched_at) : null;
  try {
    await importNvd(deps, url, nvdApiSource(url, policy, { since, until }), summary);
  } catch (error) {
    if (error instanceof NvdSourceError) throw new AppError('validation_failed', `${url}: ${error.message}`);
    throw error;
  }
  const fetchedAt = iso(new Date(until));
  await deps.database.transaction((trx) =>
    feedsRepo.saveSource(trx, { url, kind: 'nvd', etag: null, last_modified: null, fetched_at: fetchedAt }),
  );
}

/** The records of a local input found (or told) to be the NVD's. */
export function nvdSourceOf(path: string, found: DetectedKind): Promise<NvdSource> {
  if (found.nvd === 'record') return nvdRecordFileSource(path);
  if (found.nvd === 'directory') return nvdDirectorySource(path);
  if (found.nvd === 'zip') return nvdZipSource(path);
  return nvdFeedSource(path, found.gzip ?? false);
}

/** Imports one NVD source into `summary`; returns the CVEs it changed. */
export async function importNvd(deps: NvdImportDeps, source: string, input: NvdSource, summary: ImportSummary): Promise<NvdImportResult> {
  const { database, clock } = deps;
  const { db } = database;
  const changedCves = new Set<string>();
  const pendingKeys = new Set<string>();
  const pendingCves = new Set<string>();
  const products = new Set<string>();
  let newest: string | null = null;
  let sinceCollection = 0;

  const lookUpProducts = async () => {
    for (const [orgId, componentIds] of await nvdRepo.componentsUnder(db, [...pendingKeys])) {
      for (const id of await findingsRepo.productsHolding(db, orgId, componentIds)) products.add(id);
    }
    for (const id of await deps.findings.productsOfGroups([...pendingCves])) products.add(id);
    pendingKeys.clear();
    pendingCves.clear();
  };

  const store = async (records: PreparedNvdRecord[]) => {
    const heads = new Map(
      (
        await nvdRepo.heads(
          db,
          records.map((r) => r.id),
        )
      ).map((h) => [h.cve, h]),
    );
    const tally = tallyBatch(records, heads, summary);
    newest = later(newest, tally.newest);
    const { changed, stored } = tally;
    if (changed.length === 0) return;
    const before = await nvdRepo.productKeysOf(db, stored);
    const cves = changed.map((r) => r.id);
    const at = iso(clock());
    await database.transaction(async (trx) => {
      await nvdRepo.replaceRecords(database, trx, changed, stored, at);
      await refreshGroups(database, trx, cves, at);
    });
    for (const key of [...before, ...changed.flatMap(productKeysOf)]) pendingKeys.add(key);
    for (const cve of cves) {
      pendingCves.add(cve);
      changedCves.add(cve);
    }
    await deps.nvdChanged?.(cves);
    if (pendingKeys.size + pendingCves.size >= PRODUCTS_LOOKUP_FROM) await lookUpProducts();
  };

  for await (const batch of deps.records.nvd(input.items)) {
    const records: PreparedNvdRecord[] = [];
    for (const item of batch) {
      if ('record' in item) records.push(item.record);
      else summary.skipped.push(item.skipped);
    }
    summary.records += batch.length;
    deps.onProgress?.({ source, records: summary.records, done: input.done(), size: input.size || null });
    // The same CVE twice in one input: the later one stands, as it would in two imports.
    const unique = [...new Map(records.map((r) => [r.id, r])).values()];
    if (unique.length) await store(unique);
    // As the OSV import does: records live just long enough to reach the old generation, which
    // V8 lets grow to several times what it holds (a 300,000-record import peaked at 338 MiB).
    sinceCollection += batch.length;
    if (deps.collectGarbage && sinceCollection >= deps.collectGarbage.everyRecords) {
      sinceCollection = 0;
      deps.collectGarbage.collect();
    }
  }
  if (summary.new + summary.changed + summary.withdrawn >= 1_000) await feedsRepo.refreshStatistics(database);
  await lookUpProducts();
  summary.findings = await deps.findings.refreshProducts(products);
  await database.transaction((trx) => feedsRepo.recordImport(trx, 'nvd', source, iso(clock()), newest));
  return { changedCves };
}
