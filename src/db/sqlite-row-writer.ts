import type { PackedRows } from './packed-rows.js';
import type { RowWriterAnswer } from './sqlite-row-writer-worker.js';
import { sqliteThread } from './sqlite-thread.js';

// Finds or inserts a batch of packed rows in a worker thread with its own connection
// (sqlite-row-writer-worker.ts, sqlite-thread.ts), in one transaction: the event loop only posts the buffers.
// The caller (sqlite.ts) keeps its own connection from writing meanwhile, so that the event
// loop never waits on SQLite's lock; readers go on beside it (WAL).

export interface RowWriter {
  /** The ids of the rows, or the storage error (with SQLite's code) that stopped the batch. */
  write(rows: PackedRows): Promise<Float64Array>;
  close(): Promise<void>;
}

export function createRowWriter(path: string): RowWriter {
  // Each row's values are short-lived strings: a small young generation collects them as it
  // goes, instead of growing the thread's heap for a document of 100,000 rows.
  const thread = sqliteThread(path, 'sqlite-row-writer-worker', { maxYoungGenerationSizeMb: 8 });
  return {
    async write(rows) {
      const answer = await thread.run<RowWriterAnswer>({ rows });
      if (!answer.ok) throw Object.assign(new Error(answer.message), { code: answer.code });
      return answer.ids;
    },
    close: () => thread.close(),
  };
}
