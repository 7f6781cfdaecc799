import SQLite from 'better-sqlite3';

// A worker thread's connections (sqlite-thread.ts): one per database file, opened with the
// thread's pragmas on its first task, closed when the thread is told to close or its file failed.

const connections = new Map<string, SQLite.Database>();

export function threadConnection(path: string, pragmas: readonly string[]): SQLite.Database {
  let db = connections.get(path);
  if (!db) {
    db = new SQLite(path);
    for (const pragma of pragmas) db.pragma(pragma);
    connections.set(path, db);
  }
  return db;
}

export function closeThreadConnection(path: string): void {
  connections.get(path)?.close();
  connections.delete(path);
}
