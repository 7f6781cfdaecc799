import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { workerUrl } from '../../shared/worker-url.js';
import type { Source } from './osv-source.js';
import { type NvdBatch, type PreparedNvd, packNvdBatch, prepareNvd, type RawNvd } from './prepare-nvd.js';
import { type Prepared, prepareRecord, type RawRecord, type Skipped } from './prepare-record.js';

// Feed records (OSV's and the NVD's) are parsed, checked and digested in worker threads while the
// import stores the batch before: preparing takes as long as storing. One pool serves every
// import of the process (the composition root makes it and closes it); its threads start with
// the first large import (a small import, or none, starts none) and all but one end when idle.

/** Records handed on at a time: what an import stores, groups and matches in one step. */
export const RECORD_BATCH = 500;
/** From this many records an import's are prepared in worker threads (starting them costs ~0.2 s). */
const POOL_FROM = 2_000;

/** How one kind of record is prepared: by which function of record-worker.ts, or here. */
interface Preparation<R, P> {
  task: 'prepareOsv' | 'prepareNvd';
  /** A batch as its worker function takes it, and the buffers moved to it rather than copied. */
  message(batch: R[]): { task: unknown; transferList: ArrayBuffer[] };
  /** One record prepared here: an import too small to wake a thread, or a batch a thread failed. */
  prepare(raw: R): P;
  /** Whether a batch a thread failed is prepared here again (its bytes were copied to the thread, not moved). */
  retriesHere: boolean;
}

const OSV: Preparation<RawRecord, Prepared> = {
  task: 'prepareOsv',
  message: (batch) => ({ task: batch, transferList: batch.map((r) => r.data.buffer as ArrayBuffer) }),
  prepare: prepareRecord,
  retriesHere: false,
};

const NVD: Preparation<RawNvd, PreparedNvd> = {
  task: 'prepareNvd',
  message: (batch) => {
    const packed: NvdBatch = packNvdBatch(batch);
    return { task: packed, transferList: [packed.bytes.buffer as ArrayBuffer] };
  },
  prepare: prepareNvd,
  retriesHere: true,
};

export interface RecordPool {
  /** An OSV source's records, prepared in batches of RECORD_BATCH, in the source's order. */
  osv(source: Source): AsyncGenerator<Prepared[]>;
  /** An NVD source's records (or why one was not read), prepared in batches of RECORD_BATCH, in order. */
  nvd(items: AsyncIterable<RawNvd | Skipped>): AsyncGenerator<PreparedNvd[]>;
  /** Ends the threads (shutdown); a later import starts them again. */
  close(): Promise<void>;
}

export function createRecordPool(): RecordPool {
  let pool: Piscina | null = null;
  const thePool = (): Piscina => {
    if (pool) return pool;
    pool = new Piscina({
      filename: workerUrl(import.meta.url, 'record-worker'),
      maxThreads: Math.max(1, availableParallelism() - 1),
      // One thread stays (idle, it keeps no process alive): with none, piscina 5 leaves a batch
      // queued behind a thread that ran out of memory waiting forever.
      minThreads: 1,
      idleTimeout: 2_000,
      // A batch's garbage is small and short-lived: a small heap keeps the import's memory bounded.
      resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 48 },
    });
    // A thread that fails with no batch in it is replaced by piscina, which then emits the error on
    // the pool: unheard, it would end the process. A batch in a failed thread rejects its own run.
    pool.on('error', (error: unknown) => {
      process.emitWarning(`a feed record thread failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    return pool;
  };

  async function* prepared<R, P>(
    items: AsyncIterable<R | Skipped>,
    how: Preparation<R, P>,
    skippedOf: (item: R | Skipped) => Skipped | null,
    expected: number | null,
  ): AsyncGenerator<Array<P | Skipped>> {
    let seen = 0;
    const inFlight: Array<Promise<Array<P | Skipped>>> = [];
    const submit = (batch: Array<R | Skipped>) => {
      const raw: R[] = [];
      const slots: Array<P | Skipped | null> = batch.map((item) => {
        const skipped = skippedOf(item);
        if (!skipped) raw.push(item as R);
        return skipped;
      });
      const here = () => raw.map(how.prepare);
      let work: Promise<P[]>;
      // Once started, the threads take every batch (the NVD's yearly files are one import, ~1,000 to 15,000 records each).
      if (pool || (expected ?? 0) >= POOL_FROM || seen >= POOL_FROM) {
        // A batch the thread could not prepare (one record too large for its small heap) is prepared here.
        const { task, transferList } = how.message(raw);
        work = thePool().run(task, { name: how.task, transferList }) as Promise<P[]>;
        if (how.retriesHere) work = work.catch(here);
      } else work = Promise.resolve(here());
      inFlight.push(
        work.then((done) => {
          let next = 0;
          return slots.map((slot) => slot ?? done[next++]!);
        }),
      );
    };
    try {
      let batch: Array<R | Skipped> = [];
      for await (const item of items) {
        batch.push(item);
        seen++;
        if (batch.length < RECORD_BATCH) continue;
        submit(batch);
        batch = [];
        // Two batches ahead of the store at most: memory holds three whatever the input's size.
        if (inFlight.length >= 2) yield await inFlight.shift()!;
      }
      if (batch.length) submit(batch);
      while (inFlight.length) yield await inFlight.shift()!;
    } finally {
      await Promise.allSettled(inFlight);
    }
  }

  return {
    osv: (source) =>
      prepared(source.items, OSV, (i) => ('error' in i ? { skipped: { entry: i.entry, reason: i.error } } : null), source.entries),
    nvd: (items) => prepared(items, NVD, (i) => ('skipped' in i ? i : null), null),
    async close() {
      const closing = pool;
      pool = null;
      await closing?.destroy();
    },
  };
}
