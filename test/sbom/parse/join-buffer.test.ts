import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JoinBuffer } from '../../../src/sbom/parse/join-buffer.js';

const chunksOf = (text: string, size: number): Uint8Array[] => {
  const bytes = Buffer.from(text);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(new Uint8Array(bytes.subarray(at, at + size)));
  return out;
};

describe('JoinBuffer (a parse thread joins chunks in memory it keeps)', () => {
  it('joins chunks into the bytes they were cut from, in memory kept for the next document', () => {
    const joiner = new JoinBuffer(1024, 60_000);
    const first = joiner.join(chunksOf('{"a": "ä€😀", "b": [1, 2, 3]}', 7));
    assert.equal(first.toString('utf8'), '{"a": "ä€😀", "b": [1, 2, 3]}');
    const memory = first.buffer;
    const second = joiner.join(chunksOf('[true]', 2));
    assert.equal(second.toString(), '[true]');
    assert.equal(second.buffer, memory, 'the same memory again');
    assert.equal(second.byteOffset, 0);
    joiner.release();
  });

  it('grows by doubling up to its limit, and joins larger documents in fresh memory it does not keep', () => {
    const joiner = new JoinBuffer(100, 60_000);
    joiner.join(chunksOf('x'.repeat(30), 8));
    assert.equal(joiner.keptBytes, 30);
    joiner.join(chunksOf('y'.repeat(40), 8));
    assert.equal(joiner.keptBytes, 60, 'doubled');
    joiner.join(chunksOf('z'.repeat(70), 8));
    assert.equal(joiner.keptBytes, 100, 'doubling stops at the limit');
    const large = joiner.join(chunksOf('w'.repeat(150), 8));
    assert.equal(large.toString(), 'w'.repeat(150));
    assert.equal(joiner.keptBytes, 0, 'the larger document is not kept, and what was kept is given back');
    joiner.join(chunksOf('v'.repeat(20), 8));
    assert.equal(joiner.keptBytes, 20, 'kept again from the next one that fits');
    joiner.release();
  });

  it('hands a lone chunk on as it is', () => {
    const joiner = new JoinBuffer(1024, 60_000);
    const [only] = chunksOf('{}', 16);
    const joined = joiner.join([only!]);
    assert.equal(joined.buffer, only!.buffer);
    assert.equal(joiner.keptBytes, 0);
  });

  it('gives its memory back once idle', async () => {
    const joiner = new JoinBuffer(1024, 30);
    joiner.join(chunksOf('x'.repeat(100), 10));
    assert.equal(joiner.keptBytes, 100);
    for (let i = 0; i < 100 && joiner.keptBytes > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(joiner.keptBytes, 0);
  });

  it('tells when it lets kept memory go (the thread then collects it), and only then', () => {
    let released = 0;
    const joiner = new JoinBuffer(100, 60_000, () => released++);
    joiner.join(chunksOf('x'.repeat(50), 8));
    joiner.join(chunksOf('y'.repeat(150), 8));
    assert.equal(released, 1, 'let go before a larger document');
    joiner.join(chunksOf('z'.repeat(150), 8));
    assert.equal(released, 1, 'nothing kept, nothing to let go');
    joiner.join(chunksOf('w'.repeat(50), 8));
    joiner.release();
    assert.equal(released, 2);
  });
});
