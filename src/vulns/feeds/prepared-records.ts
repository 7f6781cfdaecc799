import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { workerUrl } from '../../shared/worker-url.js';
import type { Source, SourceItem } from './osv-source.js';
import { type Prepared, prepareRecord, type RawRecord } from './prepare-record.js';

/** Records handed on at a time: what an import stores, groups and matches in one step. */
export const RECORD_BATCH = 500;
/** From this many records a zip's are prepared in worker threads (starting them costs ~0.2 s). */
const POOL_FROM = 2_000;

/**
 * A source's records, prepared (parsed, checked, digested) in batches of RECORD_BATCH: in worker
 * threads for a large export, while the caller stores the batch before (parsing, checking and
 * digesting take as long as storing), or here for a few.
 */
export async function* preparedRecords(source: Source): AsyncGenerator<Prepared[]> {
  const pool =
    (source.entries ?? 0) >= POOL_FROM
      ? new Piscina({
          filename: workerUrl(import.meta.url, 'record-worker'),
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
      if (batch.length < RECORD_BATCH) continue;
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
