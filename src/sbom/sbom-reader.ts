import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { AppError } from '../errors.js';
import type { SbomReading } from './read-sbom.js';
import type { ReadTrace, WorkerAnswer } from './sbom-worker.js';
import { workerUrl } from '../shared/worker-url.js';

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

type Lane = 'small' | 'large';

const pools: Partial<Record<Lane, Piscina>> = {};

function thePool(lane: Lane, keepWarm = false): Piscina {
  // Workers start on first use (the CLI) or at once and stay (the server, keepWarm); an idle
  // worker keeps no process alive.
  const threads = lane === 'small' ? Math.max(1, availableParallelism()) : 1;
  let pool = pools[lane];
  if (!pool) {
    pool = new Piscina({
      filename: workerUrl(import.meta.url, 'sbom-worker'),
      maxThreads: threads,
      minThreads: keepWarm ? threads : 0,
      idleTimeout: 60_000,
    });
    pools[lane] = pool;
  }
  return pool;
}

/**
 * Starts the workers now; each compiles the CycloneDX schemas in the background as it starts
 * (sbom-worker.ts), so the first upload of each version does not wait ~0.1–0.5 s for it.
 */
export function warmUpSbomReader(): void {
  thePool('small', true);
  thePool('large', true);
}

/** Which lane reads a document of `byteLength` bytes. */
export function laneFor(byteLength: number): Lane {
  return byteLength > LARGE_DOCUMENT_BYTES ? 'large' : 'small';
}

/**
 * The document's bytes, whole or in the chunks they arrived in → its reading (format, release,
 * components in compact columns), or the AppError the document deserves. Each buffer alone on
 * its memory moves to the worker without a copy (a slice of a shared one is copied), so the
 * caller must not use them afterwards; the reading's columns move back the same way.
 * `onTrace` hears which thread read it, and when.
 */
export async function readSbom(bytes: Buffer | readonly Buffer[], onTrace?: (trace: ReadTrace) => void): Promise<SbomReading> {
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
  const answer = (await pool.run(task, { transferList })) as WorkerAnswer;
  onTrace?.(answer.trace);
  if (!answer.ok) throw new AppError(answer.code, answer.message, answer.details);
  return answer.reading;
}

/** Stops the workers (server shutdown). */
export async function closeSbomReader(): Promise<void> {
  const closing = Object.values(pools);
  delete pools.small;
  delete pools.large;
  await Promise.all(closing.map((pool) => pool?.close()));
}
