import { setImmediate as turn } from 'node:timers/promises';
import { createHash } from 'node:crypto';

/** Bytes hashed between two turns of the event loop: ~1–2 ms of work. */
const STEP_BYTES = 1024 * 1024;

/**
 * The SHA-256 (hex) of the bytes, in one buffer or in chunks, hashed a MiB at a time with a
 * turn of the event loop in between: a 50 MiB body never holds the loop for more than a step,
 * and nothing is copied (WebCrypto's digest copies its input on the event loop first).
 */
export async function sha256InSteps(bytes: Uint8Array | readonly Uint8Array[]): Promise<string> {
  const chunks = bytes instanceof Uint8Array ? [bytes] : bytes;
  const hash = createHash('sha256');
  let sinceTurn = 0;
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.byteLength; at += STEP_BYTES) {
      const piece = chunk.subarray(at, Math.min(chunk.byteLength, at + STEP_BYTES));
      hash.update(piece);
      sinceTurn += piece.byteLength;
      if (sinceTurn >= STEP_BYTES) {
        sinceTurn = 0;
        await turn();
      }
    }
  }
  return hash.digest('hex');
}
