import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { AppError } from '../../../src/errors.js';
import { keysBetween, READING_SLICES, type ReadingSlice, readSbomBytes, textAt } from '../../../src/sbom/parse/read-sbom.js';
import { createSbomReader, type ReadTrace } from '../../../src/sbom/parse/sbom-reader.js';
import { cycloneDx16, cycloneDx16ByName } from '../sbom-fixtures.js';

// The reader hands a document's components over in slices while its thread reads on
// (sbom-reader.ts, read-sbom.ts: readSbomSlices), so that storing them starts before the reading
// ends (store-components.ts: storeInSlices).
const reader = createSbomReader();
after(reader.close);

const epochNow = () => performance.timeOrigin + performance.now();

describe('SBOM reader slices', () => {
  it('hears the first slice while the thread still reads, and every slice before the answer', async () => {
    const doc = cycloneDx16ByName(60_000);
    const bytes = Buffer.from(JSON.stringify(doc));
    const whole = readSbomBytes(bytes);
    const heard: Array<{ slice: ReadingSlice; at: number }> = [];
    let trace: ReadTrace | undefined;
    // In the chunks a request body arrives in.
    const chunks = [bytes.subarray(0, 1_000_000), bytes.subarray(1_000_000)].map((chunk) => Buffer.from(chunk));
    const summary = await reader.read(chunks, (slice) => heard.push({ slice, at: epochNow() }), {
      onTrace: (t) => {
        trace = t;
      },
    });
    assert.equal(summary.count, 60_000);
    assert.deepEqual(summary.detected, whole.detected);
    assert.ok(
      heard[0]!.at < trace!.endedAt,
      `first slice heard at ${heard[0]!.at}, the reading ended at ${trace!.endedAt}: it was not handed over as it was read`,
    );
    // In document order, each where the last ended, together the whole reading.
    assert.deepEqual(
      heard.map(({ slice }) => slice.first),
      [0, 5_000, 15_000, 35_000, 55_000],
    );
    assert.equal(heard[0]!.slice.count, READING_SLICES.first);
    let next = 0;
    for (const { slice } of heard) {
      assert.equal(slice.first, next);
      next += slice.count;
      for (const i of [0, slice.count - 1]) {
        assert.equal(textAt(slice, i), textAt(whole, slice.first + i));
        assert.equal(keysBetween(slice, i, i + 1), keysBetween(whole, slice.first + i, slice.first + i + 1));
      }
      assert.equal(keysBetween(slice, 0, slice.count), keysBetween(whole, slice.first, slice.first + slice.count));
    }
    assert.equal(next, 60_000);
  });

  it('answers a refused document with its error and hands no slice over', async () => {
    const doc = cycloneDx16(12_000);
    doc.components[11_999].version = 7;
    const heard: ReadingSlice[] = [];
    await assert.rejects(
      reader.read(Buffer.from(JSON.stringify(doc)), (slice) => heard.push(slice)),
      (error) => error instanceof AppError && error.code === 'invalid_sbom',
    );
    assert.equal(heard.length, 0);
    // The thread reads on: the next document is read whole.
    const next = await reader.read(Buffer.from(JSON.stringify(cycloneDx16(3))), (slice) => heard.push(slice));
    assert.equal(next.count, 3);
    assert.deepEqual(
      heard.map((s) => [s.first, s.count]),
      [[0, 3]],
    );
  });
});
