import { sqliteThread } from './sqlite-thread.js';

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
  const thread = sqliteThread(path, 'sqlite-checkpoint-worker');
  let closed = false;
  return {
    request(done) {
      if (closed) return false;
      let checkpoint: Promise<unknown>;
      try {
        checkpoint = thread.run({});
      } catch {
        closed = true;
        return false;
      }
      checkpoint.then(done, done);
      return true;
    },
    async close() {
      closed = true;
      await thread.close();
    },
  };
}
