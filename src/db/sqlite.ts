import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Database, Trx } from './database.js';
import type { DB } from './schema.js';
import { withStatementCache } from './sqlite-statement-cache.js';

interface Pending {
  work: (trx: Trx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

const MAX_BATCH = 512;

export function openSqlite(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const native = new SQLite(path);
  // WAL lets readers run beside the writer; synchronous=FULL makes every commit durable
  // (fsync of the WAL) before the transaction returns.
  native.pragma('journal_mode = WAL');
  native.pragma('synchronous = FULL');
  native.pragma('foreign_keys = ON');
  native.pragma('busy_timeout = 10000');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(native) }) });

  // Group commit: calls that arrive while a batch is being written wait for the next batch,
  // which commits them all with one fsync.
  const queue: Pending[] = [];
  let scheduled = false;

  async function runBatch(batch: Pending[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await db.transaction().execute(async (trx) => {
        for (const item of batch) {
          await sql`savepoint w`.execute(trx);
          try {
            const value = await item.work(trx);
            await sql`release savepoint w`.execute(trx);
            outcomes.push({ ok: true, value });
          } catch (error) {
            await sql`rollback to savepoint w`.execute(trx);
            await sql`release savepoint w`.execute(trx);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) await runBatch(queue.splice(0, MAX_BATCH));
    scheduled = false;
  }

  return {
    db,
    dialect: 'sqlite',
    transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void drain());
        }
      });
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      while (scheduled || queue.length > 0) await new Promise((r) => setTimeout(r, 5));
      await db.destroy();
    },
  };
}
