import { closeThreadConnection, threadConnection } from './sqlite-thread-connection.js';

// The background checkpointer's thread (sqlite-checkpointer.ts): its own connection to the
// database, which copies committed WAL pages into the database file when asked. A PASSIVE
// checkpoint waits for nobody: it copies what no reader still needs and leaves the rest for the
// next request. Every outcome is an answer, never a throw, so the thread outlives a full disk.

export type CheckpointAnswer = { ok: true; log: number; checkpointed: number } | { ok: false; code: string };

const PRAGMAS = [
  'busy_timeout = 0',
  'synchronous = FULL',
  // This connection never commits, so it never checkpoints by itself.
  'wal_autocheckpoint = 0',
];

export default function checkpoint({ path, close }: { path: string; close?: boolean }): CheckpointAnswer {
  if (close) {
    closeThreadConnection(path);
    return { ok: true, log: 0, checkpointed: 0 };
  }
  try {
    const [row] = threadConnection(path, PRAGMAS).pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
    return { ok: true, log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 };
  } catch (error) {
    return { ok: false, code: (error as { code?: string }).code ?? 'unknown' };
  }
}
