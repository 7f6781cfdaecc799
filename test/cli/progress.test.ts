import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createProgress, progressLine } from '../../src/cli/progress.js';

// The progress line of a long import (firmware.md, Feeds): quiet for the first seconds, then
// records read, the rate and the share done, rewritten in place at most every quarter second.

function recorder() {
  const writes: string[] = [];
  let now = 0;
  const progress = createProgress({ write: (text: string) => writes.push(text) }, { now: () => now });
  return { writes, progress, at: (ms: number) => (now = ms) };
}

describe('import progress', () => {
  it('says nothing for the first three seconds, then records, rate and share, at most every 250 ms', () => {
    const { writes, progress, at } = recorder();
    at(2_999);
    progress.update({ source: 'nvd.json.gz', records: 500, done: 10, size: 100 });
    assert.deepEqual(writes, []);
    at(4_000);
    progress.update({ source: 'nvd.json.gz', records: 20_000, done: 40, size: 100 });
    at(4_100);
    progress.update({ source: 'nvd.json.gz', records: 20_500, done: 41, size: 100 });
    at(4_300);
    progress.update({ source: 'nvd.json.gz', records: 21_000, done: 45, size: 100 });
    assert.deepEqual(writes, [
      '\rnvd.json.gz: 20,000 records read, 5,000/s, 40% done',
      '\rnvd.json.gz: 21,000 records read, 4,884/s, 45% done',
    ]);
    progress.finish();
    assert.equal(writes.at(-1), '\n');
  });

  it('leaves out the share when the size is unknown, and writes no newline when it wrote nothing', () => {
    assert.equal(progressLine({ source: 'feed', records: 10, done: null, size: null }, 1_000), 'feed: 10 records read, 10/s');
    const { writes, progress } = recorder();
    progress.update({ source: 'feed', records: 1, done: null, size: null });
    progress.finish();
    assert.deepEqual(writes, []);
  });
});
