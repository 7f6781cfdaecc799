// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { workerUrl } from '../../../src/shared/worker-url.js';
import {
  createSbomReader,
  LARGE_DOCUMENT_BYTES,
  laneFor,
  type ReadTrace,
  SMALL_LANE_YOUNG_GENERATION_MB,
  SMALL_LANE_WARM_UP,
} from '../../../src/sbom/parse/sbom-reader.js';
import { type ReadTask, WARM_UP_COMPONENTS, type WorkerAnswer, warmUpDocument } from '../../../src/sbom/parse/sbom-worker.js';
import { readSbomBytes } from '../../../src/sbom/parse/read-sbom.js';
import { cycloneDx16 } from '../sbom-fixtures.js';

// The memory bound of concurrent large uploads rests on this: documents over
// LARGE_DOCUMENT_BYTES are read one at a time, always by the same thread, and small documents
// never wait behind them (bench: "peak RSS, 8 concurrent 49.5 MiB uploads").

/** A valid CycloneDX document of at least `bytes` bytes (a new one each call). */
function documentOf(bytes: number): Buffer {
  const perComponent = 150; // fewer bytes than the smallest component takes
  return Buffer.from(JSON.stringify(cycloneDx16(Math.ceil(bytes / perComponent))));
}

const reader = createSbomReader();
/** Reads a document whose slices nobody keeps. */
const readSbom = (bytes: Buffer, onTrace?: (trace: ReadTrace) => void) => reader.read(bytes, () => {}, { onTrace });
after(reader.close);

/** A document read by `pool` as the reader reads it (its slices through a port, left unread). */
async function runOn(pool: Piscina, bytes: Uint8Array): Promise<WorkerAnswer> {
  const { port1, port2 } = new MessageChannel();
  try {
    const task: ReadTask = { chunks: [bytes], port: port2, compress: true };
    return (await pool.run(task, { transferList: [bytes.buffer as ArrayBuffer, port2] })) as WorkerAnswer;
  } finally {
    port1.close();
  }
}

describe('SBOM reader lanes', () => {
  it('sends documents over the threshold to the large lane, others to the small one', () => {
    assert.equal(laneFor(LARGE_DOCUMENT_BYTES), 'small');
    assert.equal(laneFor(LARGE_DOCUMENT_BYTES + 1), 'large');
  });

  it('reads large documents one after the other in one thread, and small ones beside them', async () => {
    const large = [documentOf(LARGE_DOCUMENT_BYTES + 1024), documentOf(LARGE_DOCUMENT_BYTES + 1024)];
    assert.ok(large.every((doc) => laneFor(doc.byteLength) === 'large'));
    const traces: ReadTrace[] = [];
    const order: string[] = [];
    const reads = large.map((doc, i) =>
      readSbom(doc, (trace) => traces.push(trace)).then((reading) => {
        order.push(`large-${i}`);
        return reading;
      }),
    );
    // Sent after the large ones: answered while they still queue for their single thread.
    let smallTrace: ReadTrace | undefined;
    const small = readSbom(Buffer.from(JSON.stringify(cycloneDx16(5))), (trace) => {
      smallTrace = trace;
    }).then((reading) => {
      order.push('small');
      return reading;
    });
    const readings = await Promise.all([...reads, small]);
    assert.ok(readings.slice(0, 2).every((r) => r.count > 50_000));
    assert.equal(readings[2]!.count, 5);

    assert.equal(new Set(traces.map((t) => t.threadId)).size, 1, 'every large document read by the same thread');
    const sorted = [...traces].sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < sorted.length; i++) {
      assert.ok(sorted[i]!.startedAt >= sorted[i - 1]!.endedAt, 'no two large documents read at once');
    }
    assert.notEqual(order.indexOf('small'), 2, 'the small document did not wait for both large ones');
    // A small-lane thread has room for a whole reading in its young generation; the large lane
    // keeps V8's default, which its memory bound was measured with.
    assert.equal(smallTrace?.youngGenerationMb, SMALL_LANE_YOUNG_GENERATION_MB);
    assert.ok(
      traces.every((t) => t.youngGenerationMb !== SMALL_LANE_YOUNG_GENERATION_MB),
      JSON.stringify(traces),
    );
  });

  it("warms the server's small-lane threads up in the background: a schema, then generated documents", async () => {
    // The warm-up document is a valid one of its size, different for each seed.
    const one = readSbomBytes(warmUpDocument(WARM_UP_COMPONENTS, 1));
    assert.equal(one.count, WARM_UP_COMPONENTS);
    assert.notDeepEqual(one.keys, readSbomBytes(warmUpDocument(WARM_UP_COMPONENTS, 2)).keys);

    // Threads started on first use (the CLI's) do not warm up.
    await reader.close();
    let trace: ReadTrace | undefined;
    const small = () => Buffer.from(JSON.stringify(cycloneDx16(2)));
    await readSbom(small(), (t) => {
      trace = t;
    });
    assert.deepEqual(trace?.warmedUp, { schemas: 0, reads: 0 });

    // The server's warm up while no document comes: each small document finds them further on,
    // until all are done (a thread whose event loop never ran between tasks would stay at 0).
    await reader.close();
    reader.warmUp();
    const done = { schemas: SMALL_LANE_WARM_UP.schemas.length, reads: SMALL_LANE_WARM_UP.reads };
    assert.ok(done.schemas > 0 && done.reads > 0);
    const seen: string[] = [];
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      await readSbom(small(), (t) => {
        trace = t;
      });
      seen.push(JSON.stringify(trace!.warmedUp));
      if (isDeepStrictEqual(trace!.warmedUp, done)) break;
    }
    assert.deepEqual(trace!.warmedUp, done, seen.join(' '));
    // The large lane does not warm up.
    await readSbom(documentOf(LARGE_DOCUMENT_BYTES + 1024), (t) => {
      trace = t;
    });
    assert.deepEqual(trace!.warmedUp, { schemas: 0, reads: 0 });
  });

  it('empties the young generation between documents, so the next one starts with room', async () => {
    const pool = new Piscina({
      filename: workerUrl(new URL('../../../src/sbom/parse/sbom-reader.js', import.meta.url).href, 'sbom-worker'),
      atomics: 'disabled',
      workerData: { warmUp: null, keepJoinedUpTo: 0 },
      maxThreads: 1,
      minThreads: 1,
      resourceLimits: { maxYoungGenerationSizeMb: SMALL_LANE_YOUNG_GENERATION_MB },
    });
    try {
      const read = async (seed: number) => {
        return runOn(pool, new Uint8Array(warmUpDocument(10_000, seed)));
      };
      const answers = [await read(1), await read(2), await read(3)];
      assert.ok(answers.every((a) => a.ok && a.summary.count === 10_000));
      // One reading leaves ~25 MB of garbage behind; a scavenge keeps only what lives on.
      for (const answer of answers.slice(1)) assert.ok(answer.trace.youngInUseMb < 5, JSON.stringify(answers.map((a) => a.trace)));
    } finally {
      await pool.destroy();
    }
  });

  it('stops a warm-up that fails, and the thread goes on reading documents', async () => {
    // A version with no schema: compiling it throws inside the thread's warm-up.
    const pool = new Piscina({
      filename: workerUrl(new URL('../../../src/sbom/parse/sbom-reader.js', import.meta.url).href, 'sbom-worker'),
      atomics: 'disabled',
      workerData: { warmUp: { schemas: ['0.9'], reads: 2 } },
      maxThreads: 1,
      minThreads: 1,
    });
    const errors: unknown[] = [];
    pool.on('error', (error) => errors.push(error));
    try {
      const read = async () => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        // A copy on memory of its own: a small Buffer is a slice of Node's shared pool, which cannot move.
        return runOn(pool, new Uint8Array(Buffer.from(JSON.stringify(cycloneDx16(2)))));
      };
      const first = await read();
      const second = await read();
      assert.ok(first.ok && second.ok);
      assert.equal(first.summary.count, 2);
      assert.deepEqual(second.trace.warmedUp, { schemas: 0, reads: 0 }, 'the reads after the failed step did not run');
      assert.equal(second.trace.threadId, first.trace.threadId, 'the same thread, not a replacement');
      assert.deepEqual(errors, []);
    } finally {
      await pool.destroy();
    }
  });
});
