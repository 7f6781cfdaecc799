import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { migrateToLatest, openDatabase } from '../../src/db/index.js';

// The SQLite files hold password hashes, sealed secrets and every organisation's data: only
// their owner may read them (0600, as the console-secret file beside them), whatever the umask.

const mode = (path: string) => statSync(path).mode & 0o777;

describe('SQLite file modes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cra-modes-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the database, its WAL and its shared-memory file 0600 under a permissive umask', async () => {
    const previous = process.umask(0o022);
    try {
      const path = join(dir, 'new.db');
      const database = openDatabase(`sqlite:${path}`);
      await migrateToLatest(database);
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        assert.ok(existsSync(file), file);
        assert.equal(mode(file).toString(8), '600', file);
      }
      await database.close();
    } finally {
      process.umask(previous);
    }
  });

  it('narrows the files of an existing database to 0600 when it opens them', async () => {
    const path = join(dir, 'old.db');
    const first = openDatabase(`sqlite:${path}`);
    await migrateToLatest(first);
    await first.close();
    for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o644);
    writeFileSync(`${path}-wal`, '', { flag: 'a' });
    chmodSync(`${path}-wal`, 0o644);
    const again = openDatabase(`sqlite:${path}`);
    await again.ping();
    for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(file).toString(8), '600', file);
    await again.close();
  });
});
