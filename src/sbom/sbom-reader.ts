import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { AppError } from '../errors.js';
import type { SbomReading } from './read-sbom.js';
import type { WorkerAnswer } from './sbom-worker.js';

// Parsing, validating and normalising a large SBOM takes up to seconds of CPU: it runs in a
// pool of worker threads (one per core) so the event loop keeps serving other requests.
// Callers see one async function; that it is a worker is this module's business.

let pool: Piscina | undefined;

function workerUrl(): string {
  // Under tsx (tests) this module is TypeScript, and so is its worker.
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./sbom-worker${extension}`, import.meta.url).href;
}

function thePool(): Piscina {
  // Workers start on first use and stop after a minute idle; an idle pool keeps no process alive.
  pool ??= new Piscina({ filename: workerUrl(), maxThreads: Math.max(1, availableParallelism()), minThreads: 0, idleTimeout: 60_000 });
  return pool;
}

/**
 * The document's bytes → its reading (format, release, components in compact columns), or the
 * AppError the document deserves. `bytes` may be handed over to the worker without a copy:
 * the caller must not use them afterwards.
 */
export async function readSbom(bytes: Buffer): Promise<SbomReading> {
  // A buffer alone on its memory moves to the worker; a slice of a shared one is copied.
  const owns = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer);
  const answer = (await thePool().run(bytes, owns ? { transferList: [bytes.buffer as ArrayBuffer] } : {})) as WorkerAnswer;
  if (!answer.ok) throw new AppError(answer.code, answer.message, answer.details);
  return answer.reading;
}

/** Stops the workers (server shutdown). */
export async function closeSbomReader(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.close();
}
