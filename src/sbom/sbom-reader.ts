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

function thePool(keepWarm = false): Piscina {
  // Workers start on first use (the CLI) or at once and stay (the server, keepWarm); an idle
  // worker keeps no process alive.
  const threads = Math.max(1, availableParallelism());
  pool ??= new Piscina({ filename: workerUrl(), maxThreads: threads, minThreads: keepWarm ? threads : 0, idleTimeout: 60_000 });
  return pool;
}

/**
 * Starts the workers now; each compiles the CycloneDX schemas in the background as it starts
 * (sbom-worker.ts), so the first upload of each version does not wait ~0.1–0.5 s for it.
 */
export function warmUpSbomReader(): void {
  thePool(true);
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
