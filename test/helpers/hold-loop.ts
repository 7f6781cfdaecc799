/** Holds this process's event loop (a long synchronous task, or a host that did not schedule it) for `ms`. */
export function holdLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: no timer, no socket is served meanwhile
  }
}

/**
 * Holds the event loop in bursts of `burstMs`, letting one turn of the loop run between two
 * (its timers, then what its sockets received), until `done` settles.
 */
export async function holdLoopUntil<T>(done: Promise<T>, burstMs: number): Promise<T> {
  let settled = false;
  const result = done.finally(() => {
    settled = true;
  });
  while (!settled) {
    holdLoop(burstMs);
    await new Promise((r) => setImmediate(r));
  }
  return result;
}
