import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { type Clock, iso } from '../../shared/time.js';
import type { FindingsEngine } from '../engine/findings-engine.js';
import { type EuvdPair, EuvdMappingReader } from '../feeds/euvd.js';
import { FeedRecordError } from '../feeds/json-text.js';
import type { KevEntry, KevSource } from '../feeds/kev.js';
import { RECORD_BATCH } from '../feeds/prepared-records.js';
import { euvdRepo } from '../store/euvd.repo.js';
import { feedsRepo } from '../store/feeds.repo.js';
import { groupsNaming, refreshGroups } from '../store/vulnerabilities.repo.js';
import type { FeedKind, ImportProgress, ImportSummary } from '../vulns.schemas.js';

// The lists that name CVEs rather than describe them: the two KEV catalogues and the EUVD's
// exploited list (each replaced whole: an entry gone from a list is no longer exploited by its
// word), and the EUVD's mapping of CVEs to EUVD ids (added to, row by row as it streams in).
// Either way the alias groups naming the CVEs that changed are rebuilt, and for the exploited
// lists the products with their findings refreshed, which carries them to Article 14.

export interface ListImportDeps {
  database: Database;
  clock: Clock;
  findings: Pick<FindingsEngine, 'refreshProducts' | 'productsOfGroups'>;
}

/** The groups naming `cves` rebuilt, a batch at a time; returns them. */
async function refreshNaming(deps: ListImportDeps, cves: readonly string[], at: string): Promise<string[]> {
  const groups = await groupsNaming(deps.database.db, cves);
  for (let i = 0; i < groups.length; i += RECORD_BATCH) {
    await deps.database.transaction((trx) => refreshGroups(deps.database, trx, groups.slice(i, i + RECORD_BATCH), at));
  }
  return groups;
}

/** One exploited list (`kind` the feed, `source` the kev_entries source) replaced by `entries`. */
export async function importExploitedList(
  deps: ListImportDeps,
  input: { source: string; kind: FeedKind; kevSource: KevSource },
  read: { entries: KevEntry[]; skipped: Array<{ entry: string; reason: string }> },
  summary: ImportSummary,
): Promise<void> {
  const { database, clock } = deps;
  const { entries, skipped } = read;
  summary.records = entries.length + skipped.length;
  summary.skipped.push(...skipped);
  const before = await feedsRepo.kevData(database.db, input.kevSource);
  for (const e of entries) {
    const was = before.get(e.cve);
    if (was === undefined) summary.new++;
    else if (was !== JSON.stringify(e.data)) summary.changed++;
    else summary.unchanged++;
  }
  const at = iso(clock());
  const touched = await database.transaction((trx) => feedsRepo.replaceKev(database, trx, input.kevSource, entries));
  const groups = await refreshNaming(deps, touched, at);
  summary.findings = await deps.findings.refreshProducts(await deps.findings.productsOfGroups(groups));
  const newest = entries.reduce<string | null>((max, e) => (e.dateAdded && (max === null || e.dateAdded > max) ? e.dateAdded : max), null);
  await database.transaction((trx) => feedsRepo.recordImport(trx, input.kind, input.source, at, newest));
}

/** The EUVD's mapping CSV, streamed: each batch of rows stored, the groups of changed CVEs rebuilt. */
export async function importEuvdMapping(
  deps: ListImportDeps,
  source: string,
  path: string,
  summary: ImportSummary,
  onProgress?: (progress: ImportProgress) => void,
): Promise<void> {
  const { database, clock } = deps;
  const { size } = await stat(path);
  const reader = new EuvdMappingReader();
  const at = iso(clock());
  let pending: EuvdPair[] = [];
  const store = async () => {
    // The same CVE twice: the later row stands.
    const pairs = [...new Map(pending.map((p) => [p.cve, p])).values()];
    pending = [];
    const known = await euvdRepo.idsOf(
      database.db,
      pairs.map((p) => p.cve),
    );
    const changed = pairs.filter((p) => known.get(p.cve) !== p.euvd);
    for (const p of pairs) {
      const was = known.get(p.cve);
      if (was === undefined) summary.new++;
      else if (was !== p.euvd) summary.changed++;
      else summary.unchanged++;
    }
    if (changed.length === 0) return;
    await database.transaction((trx) => euvdRepo.upsert(database, trx, changed));
    await refreshNaming(
      deps,
      changed.map((p) => p.cve),
      at,
    );
  };
  try {
    const file = createReadStream(path, { highWaterMark: 256 * 1024 });
    for await (const chunk of file as AsyncIterable<Buffer>) {
      pending.push(...reader.push(chunk));
      onProgress?.({ source, records: reader.rows, done: file.bytesRead, size });
      if (pending.length >= 5_000) await store();
    }
    pending.push(...reader.end());
    await store();
  } catch (error) {
    if (error instanceof FeedRecordError) throw new AppError('validation_failed', `${source}: ${error.message}`);
    throw error;
  }
  summary.records = reader.rows;
  summary.skipped.push(...reader.skipped);
  await database.transaction((trx) => feedsRepo.recordImport(trx, 'euvd', source, iso(clock()), null));
}
