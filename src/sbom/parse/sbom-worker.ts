import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { isMainThread, type MessagePort, resourceLimits, threadId, workerData } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import { exposedGc, fullCollection } from '../../shared/full-collection.js';
import { type CycloneDxVersion, cycloneDxValidator, isCycloneDxValidatorReady } from './cyclonedx-validator.js';
import { JoinBuffer } from './join-buffer.js';
import type { ConformanceProfileId } from '../conformance/conformance.js';
import { READING_SLICES, type ReadingSlice, type ReadingSummary, readSbomBytes, readSbomSlices } from './read-sbom.js';
import { compressDocument } from './document-codec.js';

// Runs in a worker thread of sbom-reader.ts. An AppError cannot cross the thread boundary as
// itself, so it comes back as data; anything else is a bug and is thrown.

/** Which thread read a document, when (epoch milliseconds) and with what young generation: what the lanes promise is checkable. */
export interface ReadTrace {
  threadId: number;
  /** The thread's young generation limit in MiB (V8's default unless sbom-reader.ts set one). */
  youngGenerationMb: number;
  /** How far the thread's warm-up had got when it started this document. */
  warmedUp: { schemas: number; reads: number };
  /** MiB of the young generation in use when it started this document (emptied between documents: see below). */
  youngInUseMb: number;
  startedAt: number;
  endedAt: number;
}

/**
 * A document to read: its bytes, whole or in the chunks they arrived in, and the port its
 * components go out through, a ReadingSlice per message as they are read (their columns moved,
 * not copied).
 */
export interface ReadTask {
  chunks: Uint8Array[];
  port: MessagePort;
  /** A conformance profile the document must meet (the organisation's policy), else it is refused before any slice goes out. */
  require?: ConformanceProfileId | undefined;
  /** Whether to compress the document as it is kept (an ingest); `sbom check` keeps nothing. */
  compress: boolean;
}

/** The answer, once every slice has been posted: `slices` of them. */
export type WorkerAnswer = { trace: ReadTrace } & (
  | { ok: true; summary: ReadingSummary; slices: number; compressed: Uint8Array | null }
  | { ok: false; code: AppError['code']; message: string; details?: AppError['details'] }
);

const now = () => performance.timeOrigin + performance.now();

/** What a thread does as it starts, told by sbom-reader.ts (the server's threads; not the CLI's). */
export interface WarmUpPlan {
  /** Compile the CycloneDX schemas of these versions; a document of another compiles its own on arrival. */
  schemas: CycloneDxVersion[];
  /** Then read this many generated documents of WARM_UP_COMPONENTS components. */
  reads: number;
}

/** Components of each generated document a warm-up reads. */
export const WARM_UP_COMPONENTS = 3_000;

/** What sbom-reader.ts tells a thread as it starts. */
export interface ThreadPlan {
  warmUp: WarmUpPlan | null;
  /** Documents up to this many bytes are joined in memory the thread keeps (join-buffer.ts). */
  keepJoinedUpTo: number;
}

const told = (workerData ?? {}) as Partial<ThreadPlan>;
const plan: WarmUpPlan = told.warmUp ?? { schemas: [], reads: 0 };
/** Given back after this long without a document. */
const JOIN_BUFFER_IDLE_MS = 30_000;

const warmedUp = { schemas: 0, reads: 0 };

/**
 * A CycloneDX 1.6 document of `count` components shaped like a build's (npm packages with a
 * licence and a digest), different for each `seed`.
 */
export function warmUpDocument(count: number, seed: number): Buffer {
  const components = Array.from({ length: count }, (_, i) => {
    const purl = `pkg:npm/%40warm-up/package-${seed}-${i}@1.${i % 13}.${i % 7}`;
    return {
      type: 'library',
      'bom-ref': purl,
      group: '@warm-up',
      name: `package-${seed}-${i}`,
      version: `1.${i % 13}.${i % 7}`,
      purl,
      licenses: [{ license: { id: i % 3 ? 'MIT' : 'Apache-2.0' } }],
      hashes: [{ alg: 'SHA-256', content: (seed * 100_003 + i).toString(16).padStart(64, '0') }],
    };
  });
  const metadata = { component: { type: 'application', name: 'warm-up', version: '1.0.0' } };
  return Buffer.from(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata, components }));
}

/**
 * A scavenge of the young generation, run between documents. Reading 10,000 components
 * allocates ~25 MB that dies with the reading. Left to itself, V8 scavenges when the young
 * generation is full, which was nearly always in the middle of the next document: its live
 * objects were copied and promoted to the old generation, fresh memory each time, and the
 * reading took 80–100 ms instead of 55–60 (--trace-gc in the server). Emptied between documents
 * (~1 ms, nearly all of it garbage), a reading that fits the young generation needs no
 * collection at all (shared/full-collection.ts: the `gc` of --expose-gc).
 */
const gc = isMainThread ? null : exposedGc();

let collectionScheduled = false;
/** Scavenges on the next turn of the event loop, once the answer is on its way. */
function collectAfterDocument(): void {
  if (!gc || collectionScheduled) return;
  collectionScheduled = true;
  setImmediate(() => {
    collectionScheduled = false;
    gc({ type: 'minor' });
  });
}

// Kept joined memory is in the old generation: a full collection frees it once let go.
const joinBuffer = new JoinBuffer(told.keepJoinedUpTo ?? 0, JOIN_BUFFER_IDLE_MS, () => {
  if (gc) fullCollection();
});

const youngInUseMb = (): number => {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return space ? Math.round((space.space_used_size / 1024 / 1024) * 10) / 10 : 0;
};

// One step per turn of the event loop, so a document that arrives meanwhile waits for one step
// at most. Compiling a schema takes ~0.1–0.5 s (and ~40 MiB of memory, so only the versions
// asked for); the reads that follow let V8 optimise the reading code and size the young
// generation for it (sbom-reader.ts), which otherwise takes the first few uploads: ~150 ms,
// not ~65, for each of the first four of 10,000 components (bench).
function warmUp(step: number): void {
  try {
    if (step < plan.schemas.length) {
      const version = plan.schemas[step]!;
      if (!isCycloneDxValidatorReady(version)) cycloneDxValidator(version);
      warmedUp.schemas++;
    } else if (step < plan.schemas.length + plan.reads) {
      readSbomBytes(warmUpDocument(WARM_UP_COMPONENTS, step));
      warmedUp.reads++;
      collectAfterDocument();
    } else return;
  } catch (error) {
    // Thrown here it would end the thread (and, with no document in it, the server): the
    // warm-up stops instead, and the thread reads documents as it would have anyway.
    process.emitWarning(`the SBOM parse thread stopped warming up: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  setImmediate(() => warmUp(step + 1));
}
if (!isMainThread) setImmediate(() => warmUp(0));

/**
 * The task's document → its components through the task's port, then the answer with the
 * document compressed as it is kept (document-codec.ts). The compression runs on libuv's thread
 * pool while this thread reads the document, so it adds to the reading's time only what it
 * takes beyond it; the joined bytes (which may be memory the thread keeps) are not reused before
 * it ends.
 */
export default async function readInWorker({ chunks, port, require, compress }: ReadTask): Promise<WorkerAnswer> {
  const startedAt = now();
  const warmed = { ...warmedUp };
  const youngInUse = youngInUseMb();
  collectAfterDocument();
  const trace = () => ({
    threadId,
    youngGenerationMb: resourceLimits.maxYoungGenerationSizeMb ?? 0,
    warmedUp: warmed,
    youngInUseMb: youngInUse,
    startedAt,
    endedAt: now(),
  });
  let slices = 0;
  const post = (slice: ReadingSlice) => {
    const columns = [slice.texts, slice.offsets, slice.keys, slice.purlNameDiffers, slice.forms];
    port.postMessage(
      slice,
      columns.map((column) => column.buffer as ArrayBuffer),
    );
    slices++;
  };
  const joined = joinBuffer.join(chunks);
  const compressing = compress ? compressDocument(joined) : Promise.resolve(null);
  let summary: ReadingSummary;
  try {
    summary = readSbomSlices(joined, post, READING_SLICES, require);
  } catch (error) {
    await compressing.catch(() => {});
    if (error instanceof AppError) return { ok: false, code: error.code, message: error.message, details: error.details, trace: trace() };
    throw error;
  }
  const compressed = await compressing;
  return { ok: true, summary, slices, compressed, trace: trace() };
}
