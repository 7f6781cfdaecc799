/**
 * At most `size` tasks run at once; the others wait for a slot, first come first served. For work
 * that shares a bounded resource: PostgreSQL's pool (postgres-find-or-insert.ts), a document's
 * slices stored at once (store-components.ts).
 */
export class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!(size >= 1)) throw new Error(`Slots needs at least one slot, not ${size}`);
    this.#free = size;
  }

  /** Tasks running now. */
  get running(): number {
    return this.size - this.#free;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line, or is freed.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
