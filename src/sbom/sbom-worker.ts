import { performance } from 'node:perf_hooks';
import { isMainThread, threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { AppError } from '../errors.js';
import { type CycloneDxVersion, cycloneDxValidator, isCycloneDxValidatorReady } from './cyclonedx-validator.js';
import { readSbomBytes, type SbomReading } from './read-sbom.js';

// Runs in a worker thread of sbom-reader.ts. An AppError cannot cross the thread boundary as
// itself, so it comes back as data; anything else is a bug and is thrown.

/** Which thread read a document, and when (epoch milliseconds): what the lanes promise is checkable. */
export interface ReadTrace {
  threadId: number;
  startedAt: number;
  endedAt: number;
}

export type WorkerAnswer = { trace: ReadTrace } & (
  | { ok: true; reading: SbomReading }
  | { ok: false; code: AppError['code']; message: string; details?: AppError['details'] }
);

const now = () => performance.timeOrigin + performance.now();

/** Most used first: a request for a version not compiled yet compiles it itself. */
const WARM_UP_ORDER: CycloneDxVersion[] = ['1.6', '1.5', '1.4', '1.7', '1.3', '1.2'];

// Compiling a schema takes ~0.1–0.5 s: done as the worker starts, one per turn, so a task that
// arrives meanwhile waits for one compilation at most.
function warmUp(i: number): void {
  if (i >= WARM_UP_ORDER.length) return;
  const version = WARM_UP_ORDER[i]!;
  if (!isCycloneDxValidatorReady(version)) cycloneDxValidator(version);
  setImmediate(() => warmUp(i + 1));
}
if (!isMainThread) setImmediate(() => warmUp(0));

/** The document's bytes, whole or in the chunks they arrived in → the answer (its columns moved, not copied). */
export default function readInWorker(bytes: Uint8Array | Uint8Array[]): WorkerAnswer {
  const startedAt = now();
  const trace = () => ({ threadId, startedAt, endedAt: now() });
  try {
    const reading = readSbomBytes(bytes);
    const answer: WorkerAnswer = { ok: true, reading, trace: trace() };
    return move({
      [transferableSymbol]: [reading.texts.buffer, reading.offsets.buffer, reading.keys.buffer],
      [valueSymbol]: answer,
    }) as unknown as WorkerAnswer;
  } catch (error) {
    if (error instanceof AppError) return { ok: false, code: error.code, message: error.message, details: error.details, trace: trace() };
    throw error;
  }
}
