import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { AppError } from '../../errors.js';
import type { ReadingSlice, ReadingSummary } from './read-sbom.js';
import type { ConformanceProfileId } from '../conformance/conformance.js';
import type { ReadTask, ReadTrace, ThreadPlan, WarmUpPlan, WorkerAnswer } from './sbom-worker.js';
import { workerUrl } from '../../shared/worker-url.js';

export type { ReadTrace };

// Parsing, validating and normalising a large SBOM takes up to seconds of CPU: it runs in
// worker threads so the event loop keeps serving other requests. Callers see one async
// function; that it is a worker is this module's business.
//
// Two lanes. Documents up to LARGE_DOCUMENT_BYTES go to a pool of one thread per core. Larger
// ones go to a lane of their own with a single thread: parsing a 50 MiB document builds about
// 200–400 MiB of objects in its thread's heap, and a heap that grew stays grown for a while, so
// two threads taking turns at large documents would each hold that much at once. One large
// document is parsed at a time, always in the same thread (the rest wait in its queue); small
// documents never wait behind a large one.

/** Above this many bytes a document is "large" and read in the single-thread lane. */
export const LARGE_DOCUMENT_BYTES = 8 * 1024 * 1024;

/**
 * The young generation of a small-lane thread, in MiB (V8's default on a 64-bit machine is
 * about 48). Reading a document of ~10,000 components builds some 20 MB of objects that all
 * live until the reading is done: with the default, two or three scavenges per document copy
 * them and promote them to the old generation, fresh memory each time; with room for the whole
 * reading they die young. About a quarter off a 10,000-component reading (bench), for up to
 * ~40 MiB more resident memory per thread. The large lane keeps the default: its documents
 * outgrow any young generation, and its memory is the bound that matters.
 */
export const SMALL_LANE_YOUNG_GENERATION_MB = 96;

/**
 * How a small-lane thread of the server warms up as it starts (sbom-worker.ts): the schema of
 * the CycloneDX version most uploads use, then generated documents. The large lane does not:
 * its documents take seconds whatever the start, and its memory is the bound that matters.
 */
export const SMALL_LANE_WARM_UP: WarmUpPlan = { schemas: ['1.6'], reads: 8 };

/**
 * A thread joins the chunks of documents up to this many bytes in memory it keeps between
 * documents (join-buffer.ts): the small lane's whole range; on the large lane up to 40 MiB,
 * room for a document of 100,000 components (36 MiB), where fresh memory cost ~100 ms of page
 * faults per reading. The largest documents (up to SBOM_MAX_BYTES, 50 MiB by default) are
 * joined in fresh memory as before: kept memory stays resident through the whole reading, and
 * theirs is the peak that the memory bound is about (bench: 8 concurrent 49.5 MiB uploads,
 * ~40 MiB higher when it was kept). Given back when the thread idles.
 */
export const KEEP_JOINED_UP_TO: Record<'small' | 'large', number> = { small: LARGE_DOCUMENT_BYTES, large: 40 * 1024 * 1024 };

type Lane = 'small' | 'large';

/** Which lane reads a document of `byteLength` bytes. */
export function laneFor(byteLength: number): Lane {
  return byteLength > LARGE_DOCUMENT_BYTES ? 'large' : 'small';
}

export interface ReadOptions {
  require?: ConformanceProfileId;
  /** Compress the document as it is kept (default true: an ingest keeps it); false answers `compressed: null` (sbom check). */
  compress?: boolean;
  onTrace?: (trace: ReadTrace) => void;
}

/** The parse threads of one process: made and closed by the composition root (services.ts). */
export interface SbomReader {
  /**
   * The document's bytes, whole or in the chunks they arrived in → its summary (format, release,
   * how many components), or the AppError the document deserves. Its components go to `onSlice`
   * as they are read, in compact columns, a slice at a time in document order (readSbomSlices),
   * while the thread reads on: whoever stores them can start before the reading ends. Every
   * slice has been heard when the promise resolves; none is heard after it settles. Each buffer
   * alone on its memory moves to the worker without a copy (a slice of a shared one is copied),
   * so the caller must not use them afterwards; the slices' columns move back the same way.
   * `require` names a conformance profile the document must meet: one that does not is refused
   * (sbom_not_conformant) before any slice is handed over. `onTrace` hears which thread read it,
   * and when. `compressed` is the document as it is kept (document-codec.ts), compressed in the
   * worker's process off the event loop.
   */
  read(
    bytes: Buffer | readonly Buffer[],
    onSlice: (slice: ReadingSlice) => void,
    options?: ReadOptions,
  ): Promise<ReadingSummary & { compressed: Uint8Array | null }>;
  /**
   * Starts the workers now; the small lane's warm up in the background (SMALL_LANE_WARM_UP), so
   * the first uploads wait neither for a compilation (~0.1–0.5 s) nor for V8 to get up to speed.
   */
  warmUp(): void;
  /** Stops the workers; a later read starts them again. */
  close(): Promise<void>;
}

export function createSbomReader(): SbomReader {
  const pools: Partial<Record<Lane, Piscina>> = {};

  function thePool(lane: Lane, keepWarm = false): Piscina {
    // Workers start on first use (the CLI) or at once and stay (the server, keepWarm), and then
    // warm up; an idle worker keeps no process alive.
    const threads = lane === 'small' ? Math.max(1, availableParallelism()) : 1;
    let pool = pools[lane];
    if (!pool) {
      const plan: ThreadPlan = {
        warmUp: keepWarm && lane === 'small' ? SMALL_LANE_WARM_UP : null,
        keepJoinedUpTo: KEEP_JOINED_UP_TO[lane],
      };
      pool = new Piscina({
        // A thread's event loop runs between documents (piscina's default makes it sleep in
        // Atomics.wait, where its warm-up would never get a turn).
        atomics: 'disabled',
        workerData: plan,
        filename: workerUrl(import.meta.url, 'sbom-worker'),
        maxThreads: threads,
        minThreads: keepWarm ? threads : 0,
        idleTimeout: 60_000,
        ...(lane === 'small' ? { resourceLimits: { maxYoungGenerationSizeMb: SMALL_LANE_YOUNG_GENERATION_MB } } : {}),
      });
      // A thread that fails with no document in it (out of memory, a bug) is replaced by piscina,
      // which then emits the error on the pool: unheard, it would end the process.
      pool.on('error', (error: unknown) => {
        process.emitWarning(`an SBOM parse thread failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      pools[lane] = pool;
    }
    return pool;
  }

  return {
    async read(bytes, onSlice, { require, compress = true, onTrace } = {}) {
      const chunks = Buffer.isBuffer(bytes) ? [bytes] : bytes;
      let byteLength = 0;
      const task: Uint8Array[] = [];
      const transferList: ArrayBuffer[] = [];
      for (const chunk of chunks) {
        byteLength += chunk.byteLength;
        const owns = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && !(chunk.buffer instanceof SharedArrayBuffer);
        const movable = owns ? chunk : new Uint8Array(chunk);
        task.push(movable);
        transferList.push(movable.buffer as ArrayBuffer);
      }
      const pool = thePool(laneFor(byteLength));
      // The slices come through a port of their own, beside the pool's: the answer can arrive
      // before the last of them, so it says how many to wait for. A slice that cannot arrive (its
      // message undecodable, the port closed first) fails the read rather than leaving it waiting.
      const { port1, port2 } = new MessageChannel();
      let heard = 0;
      let expected = Number.POSITIVE_INFINITY;
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const allHeard = new Promise<void>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      allHeard.catch(() => {}); // awaited only once the answer came
      port1.on('message', (slice: ReadingSlice) => {
        heard++;
        onSlice(slice);
        if (heard >= expected) resolve();
      });
      port1.on('messageerror', reject);
      port1.on('close', () => reject(new Error(`the parse thread's port closed after ${heard} slices`)));
      try {
        const readTask: ReadTask = { chunks: task, port: port2, require, compress };
        const answer = (await pool.run(readTask, { transferList: [...transferList, port2] })) as WorkerAnswer;
        onTrace?.(answer.trace);
        if (!answer.ok) throw new AppError(answer.code, answer.message, answer.details);
        expected = answer.slices;
        if (heard >= expected) resolve();
        await allHeard;
        return { ...answer.summary, compressed: answer.compressed };
      } finally {
        port1.close();
      }
    },

    warmUp() {
      thePool('small', true);
      thePool('large', true);
    },

    async close() {
      const closing = Object.values(pools);
      delete pools.small;
      delete pools.large;
      await Promise.all(closing.map((pool) => pool?.close()));
    },
  };
}
