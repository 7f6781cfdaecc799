import { Piscina } from 'piscina';
import { workerUrl } from '../shared/worker-url.js';

// A worker thread with its own connection to one SQLite file (sqlite-thread-connection.ts), for
// work that must not run on the event loop: the background checkpointer's, the row writer's.
// Started by its first task and given back after 30 s without one (an idle thread keeps no
// process alive); closing waits for the task under way, then closes the thread's connection and
// the thread.

export interface SqliteThread {
  /** Runs `task` (with `path` added) in the thread; the worker's answer. May throw if no thread can start. */
  run<T>(task: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

/** `worker`: the module's name beside this one (sqlite-checkpoint-worker, sqlite-row-writer-worker). */
export function sqliteThread(path: string, worker: string, options: { maxYoungGenerationSizeMb?: number } = {}): SqliteThread {
  let pool: Piscina | null = null;
  let running: Promise<unknown> = Promise.resolve();
  return {
    run<T>(task: Record<string, unknown>) {
      pool ??= new Piscina({
        filename: workerUrl(import.meta.url, worker),
        maxThreads: 1,
        minThreads: 0,
        idleTimeout: 30_000,
        ...(options.maxYoungGenerationSizeMb ? { resourceLimits: { maxYoungGenerationSizeMb: options.maxYoungGenerationSizeMb } } : {}),
      });
      const answer = pool.run({ ...task, path }) as Promise<T>;
      running = answer.catch(() => undefined);
      return answer;
    },
    async close() {
      const closing = pool;
      pool = null;
      if (!closing) return;
      await running;
      await closing.run({ path, close: true }).catch(() => undefined);
      await closing.close();
    },
  };
}
