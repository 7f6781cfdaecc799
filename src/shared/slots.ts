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

/** Slots of `size` for each key, made when a key is first used and dropped once it is idle. */
export class KeyedSlots {
  readonly #slots = new Map<string, Slots>();

  constructor(readonly size: number) {}

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let slots = this.#slots.get(key);
    if (!slots) {
      slots = new Slots(this.size);
      this.#slots.set(key, slots);
    }
    try {
      return await slots.run(task);
    } finally {
      // Nothing running means nothing waiting either: a freed slot passes to the next in line.
      if (slots.running === 0) this.#slots.delete(key);
    }
  }

  /** Keys with a task running or waiting. */
  get keys(): number {
    return this.#slots.size;
  }
}
