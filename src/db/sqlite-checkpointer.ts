import { Piscina } from 'piscina';
import { workerUrl } from '../shared/worker-url.js';

// After a bulk insert the WAL holds thousands of pages. Copying them into the database file
// (a checkpoint, with its fsync) takes tens to hundreds of milliseconds, and better-sqlite3 runs
// everything on the calling thread: on the event loop that is a stall for every other request.
// So those checkpoints run in a worker thread with its own connection (sqlite-checkpoint-worker.ts);
// the event loop only posts a message. WAL mode lets the checkpoint run beside new commits (it
// copies what was committed when it started). If the thread cannot run, `request` answers false
// and the caller checkpoints as before.

export interface BackgroundCheckpointer {
  /** Asks for a checkpoint; `done` runs when it has finished, whatever its outcome. false: no thread, do it yourself. */
  request(done: () => void): boolean;
  close(): Promise<void>;
}

export function createBackgroundCheckpointer(path: string): BackgroundCheckpointer {
  // One thread, started on the first request; an idle thread keeps no process alive.
  let pool: Piscina | null = null;
  let closed = false;
  let running: Promise<unknown> = Promise.resolve();

  return {
    request(done) {
      if (closed) return false;
      try {
        pool ??= new Piscina({
          filename: workerUrl(import.meta.url, 'sqlite-checkpoint-worker'),
          maxThreads: 1,
          minThreads: 0,
          idleTimeout: 30_000,
        });
      } catch {
        closed = true;
        return false;
      }
      running = pool.run({ path }).then(done, done);
      return true;
    },
    async close() {
      closed = true;
      const closing = pool;
      pool = null;
      if (!closing) return;
      await running;
      await closing.run({ path, close: true }).catch(() => undefined);
      await closing.close();
    },
  };
}
