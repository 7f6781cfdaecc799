import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { sha256InSteps } from '../../src/shared/sha256-in-steps.js';

// The SBOM digest: the same SHA-256 as hashing the bytes at once, whole or in chunks of any
// size, and the event loop gets turns while a large body is hashed.
describe('sha256InSteps', () => {
  const bytes = randomBytes(5 * 1024 * 1024 + 123);
  const expected = createHash('sha256').update(bytes).digest('hex');

  it('equals the digest of the whole, for one buffer and for chunks of odd sizes', async () => {
    assert.equal(await sha256InSteps(bytes), expected);
    const chunks: Buffer[] = [];
    for (let at = 0, size = 1; at < bytes.length; at += size, size = (size * 7 + 3) % 900_001) chunks.push(bytes.subarray(at, at + size));
    assert.ok(chunks.length > 10);
    assert.equal(await sha256InSteps(chunks), expected);
    assert.equal(await sha256InSteps([]), createHash('sha256').digest('hex'));
  });

  it('lets the event loop run between steps of a large body', async () => {
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    await sha256InSteps(bytes);
    counting = false;
    // Five MiB: at least four turns taken while hashing.
    assert.ok(turns >= 4, `${turns} turns`);
  });
});
