/**
 * Where a parse thread joins a document's chunks: memory it keeps between documents.
 *
 * A document arrives in the chunks the socket read (64 KiB each) and must be one run of bytes to
 * be decoded. Joining into fresh memory each time costs more than the copy: on a virtual machine
 * the first touch of each fresh page is a page fault, ~11 µs each on the bench host, ~10 ms for
 * a 3.6 MiB document of 10,000 components and ~100 ms for one of 100,000. Memory kept from the
 * document before is already there. It is let go after `idleMs` without a document (and the
 * thread collects it: `onRelease`), so a quiet server does not hold it; documents larger than
 * `keepUpTo` are joined in fresh memory that goes with them, and the kept memory is let go first.
 */
export class JoinBuffer {
  #memory: Buffer | null = null;
  #idle: NodeJS.Timeout | null = null;

  /**
   * @param onRelease runs when kept memory is let go. Kept memory lives in the old generation,
   *   so only a full collection frees it: the parse thread runs one here (sbom-worker.ts).
   */
  constructor(
    private readonly keepUpTo: number,
    private readonly idleMs: number,
    private readonly onRelease: () => void = () => {},
  ) {}

  /** Bytes kept now (0 once let go). */
  get keptBytes(): number {
    return this.#memory?.byteLength ?? 0;
  }

  /**
   * The chunks as one buffer. A lone chunk is returned as it is; a document over `keepUpTo` is
   * joined in fresh memory; otherwise the result is a view of the kept memory, valid until the
   * next call: the caller must be done with it by then.
   */
  join(chunks: readonly Uint8Array[]): Buffer {
    if (chunks.length === 1) {
      const only = chunks[0]!;
      return Buffer.from(only.buffer, only.byteOffset, only.byteLength);
    }
    let total = 0;
    for (const chunk of chunks) total += chunk.byteLength;
    if (total > this.keepUpTo) {
      // Joined in memory that goes with it; what is kept is let go (and collected) first, so
      // the reading of the largest documents, whose peak is the bound that matters, does not
      // carry it.
      this.release();
      return Buffer.concat(chunks, total);
    }
    if (this.#memory === null || this.#memory.byteLength < total) {
      // Grown by doubling (up to the limit), so documents of slowly growing size do not each
      // allocate anew; allocUnsafeSlow, so the memory is its own and not a slice of the pool.
      const grown = Math.max(total, Math.min(this.keepUpTo, 2 * (this.#memory?.byteLength ?? 0)));
      this.#memory = null;
      this.#memory = Buffer.allocUnsafeSlow(grown);
    }
    let at = 0;
    for (const chunk of chunks) {
      this.#memory.set(chunk, at);
      at += chunk.byteLength;
    }
    this.#releaseWhenIdle();
    return this.#memory.subarray(0, total);
  }

  /** Lets the kept memory go now. */
  release(): void {
    const held = this.#memory !== null;
    this.#memory = null;
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
    if (held) this.onRelease();
  }

  #releaseWhenIdle(): void {
    if (this.#idle) this.#idle.refresh();
    else {
      this.#idle = setTimeout(() => this.release(), this.idleMs);
      this.#idle.unref();
    }
  }
}
