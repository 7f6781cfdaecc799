import { findOrInsertNative, type PackedRows } from './packed-rows.js';
import { closeThreadConnection, threadConnection } from './sqlite-thread-connection.js';

// The SQLite row writer's thread (sqlite-row-writer.ts, sqlite-thread.ts): its own connection to the database,
// on which a whole batch of packed rows is found or inserted in one transaction. A batch of
// 100,000 new components writes each page of the indexes they land in once, in one commit (in
// slices of 2,000 per transaction on the event loop, the same rows rewrote most index pages once
// per slice: 326 MB of WAL), and the event loop meanwhile serves everyone else. Every outcome is
// an answer, never a throw, so that the error's code reaches the caller (a full disk is a 503).

export type RowWriterAnswer = { ok: true; ids: Float64Array } | { ok: false; code: string; message: string };

const PRAGMAS = [
  // This thread may wait: another process (cra-admin) may hold the write lock for a while.
  'busy_timeout = 10000',
  'synchronous = FULL',
  'foreign_keys = ON',
  // The main connection schedules checkpoints after a batch (sqlite.ts), in a thread of its own.
  'wal_autocheckpoint = 0',
  // Room for the index pages a batch changes, so that each is written to the WAL once.
  'cache_size = -8192',
];

export default function write({ path, rows, close }: { path: string; rows?: PackedRows; close?: boolean }) {
  if (close) {
    closeThreadConnection(path);
    return { ok: true, ids: new Float64Array(0) } satisfies RowWriterAnswer;
  }
  try {
    const native = threadConnection(path, PRAGMAS);
    const ids = native.transaction(() => findOrInsertNative(native, rows!)).immediate();
    return { ok: true, ids } satisfies RowWriterAnswer;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    // A connection whose file failed is not reused: the next batch opens it again.
    closeThreadConnection(path);
    return { ok: false, code: typeof code === 'string' ? code : 'unknown', message: String(message) } satisfies RowWriterAnswer;
  }
}
