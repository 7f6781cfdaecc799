import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { closeSbomReader, LARGE_DOCUMENT_BYTES, laneFor, readSbom, type ReadTrace } from '../../src/sbom/sbom-reader.js';
import { cycloneDx16 } from './sbom-fixtures.js';

// The memory bound of concurrent large uploads rests on this: documents over
// LARGE_DOCUMENT_BYTES are read one at a time, always by the same thread, and small documents
// never wait behind them (bench: "peak RSS, 8 concurrent 49.5 MiB uploads").

/** A valid CycloneDX document of at least `bytes` bytes (a new one each call). */
function documentOf(bytes: number): Buffer {
  const perComponent = 150; // fewer bytes than the smallest component takes
  return Buffer.from(JSON.stringify(cycloneDx16(Math.ceil(bytes / perComponent))));
}

after(closeSbomReader);

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
    const small = readSbom(Buffer.from(JSON.stringify(cycloneDx16(5)))).then((reading) => {
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
  });
});
