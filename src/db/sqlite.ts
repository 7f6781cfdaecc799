import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { Availability } from './availability.js';
import { insertText, MAX_PARAMETERS, rowCount } from './bulk-insert.js';
import type { Database, Trx } from './database.js';
import type { DB } from './schema.js';
import { createNativeStatements, registerNative, unregisterNative } from './native-statements.js';
import { createBackgroundCheckpointer } from './sqlite-checkpointer.js';
import { openWalChangeToken } from './sqlite-change-token.js';
import { createStatementCache, kyselyDatabase } from './sqlite-statement-cache.js';
import { insideTransaction, pingOrProbe, refuseNested } from './transaction-scope.js';

interface Pending {
  work: (trx: Trx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

const MAX_BATCH = 512;
/** SQLite's default: the WAL pages after which a commit checkpoints. */
const AUTO_CHECKPOINT_PAGES = 1000;

export function openSqlite(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const native = new SQLite(path);
  // WAL lets readers run beside the writer; synchronous=FULL makes every commit durable
  // (fsync of the WAL) before the transaction returns.
  const walMode = native.pragma('journal_mode = WAL', { simple: true }) === 'wal';
  native.pragma('synchronous = FULL');
  native.pragma('foreign_keys = ON');
  native.pragma('busy_timeout = 10000');
  // The first read in WAL mode creates the wal-index whose header is the change token.
  native.prepare('select 1 from sqlite_master limit 1').get();
  // Only a WAL database has a wal-index; anything else (in memory) reads keys every time.
  const changeToken = walMode && path !== ':memory:' ? openWalChangeToken(path) : null;
  const prepare = createStatementCache(native);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: kyselyDatabase(native, prepare) }) });
  const nativeStatements = createNativeStatements(native, prepare);
  registerNative(db, nativeStatements.outside);
  const savepoint = native.prepare('savepoint w');
  const release = native.prepare('release savepoint w');
  const rollbackTo = native.prepare('rollback to savepoint w');

  // A checkpoint copies WAL pages into the database file and fsyncs it. SQLite runs one inside
  // the commit that takes the WAL past 1,000 pages, and that commit's callers wait for it:
  // ~10 ms after a 10,000-row bulk insert, far more after 100,000. So a batch that bulk-inserts
  // commits with the automatic checkpoint off, and the checkpoint runs after its callers are
  // answered, in a thread of its own (sqlite-checkpointer.ts), or on this one if that thread
  // cannot run. The commit itself is durable once the WAL is synced; a checkpoint only moves
  // pages. The automatic checkpoint comes back once no bulk insert's checkpoint is owed.
  const background = walMode && path !== ':memory:' ? createBackgroundCheckpointer(path) : null;
  let autoCheckpointOff = false;
  let checkpointDue = false;
  let checkpointPending = false;
  function deferCheckpoint(): void {
    checkpointDue = true;
    if (autoCheckpointOff) return;
    native.pragma('wal_autocheckpoint = 0');
    autoCheckpointOff = true;
  }
  function checkpointAfterBatch(): void {
    if (checkpointPending || !native.open) return;
    if (checkpointDue) {
      checkpointDue = false;
      checkpointPending = true;
      const finished = () => {
        checkpointPending = false;
        checkpointAfterBatch();
      };
      if (background?.request(finished)) return;
      setImmediate(() => {
        if (!native.open) return;
        // A checkpoint cannot run inside the next batch's transaction: that batch's end retries.
        if (native.inTransaction) {
          checkpointDue = true;
          checkpointPending = false;
          return;
        }
        try {
          native.pragma('wal_checkpoint(PASSIVE)');
        } catch {
          // Left to the automatic checkpoint of a later commit.
        }
        finished();
      });
      return;
    }
    // Inside a batch the pragma would apply to its commit: that batch's end comes back here.
    if (autoCheckpointOff && !native.inTransaction) {
      native.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
      autoCheckpointOff = false;
    }
  }

  // Group commit: calls that arrive while a batch is being written wait for the next batch,
  // which commits them all with one fsync.
  const queue: Pending[] = [];
  let scheduled = false;
  const availability = new Availability();

  async function runBatch(batch: Pending[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await db.transaction().execute(async (trx) => {
        // The batch holds the connection: its compiled statements may run natively inside it.
        registerNative(trx, nativeStatements.inside);
        try {
          for (const item of batch) {
            savepoint.run();
            try {
              const value = await insideTransaction(() => item.work(trx));
              release.run();
              outcomes.push({ ok: true, value });
            } catch (error) {
              // A full disk, a read-only file or an I/O error may end the whole transaction
              // (SQLite rolls it back itself): nothing of the batch can commit, and the
              // storage error, not a failing `rollback to`, is what every caller must hear.
              if (!native.inTransaction) throw error;
              rollbackTo.run();
              release.run();
              outcomes.push({ ok: false, error });
            }
          }
        } finally {
          unregisterNative(trx);
        }
      });
    } catch (error) {
      availability.failed(error);
      for (const item of batch) item.reject(error);
      checkpointAfterBatch();
      return;
    }
    availability.succeeded();
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
    checkpointAfterBatch();
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) await runBatch(queue.splice(0, MAX_BATCH));
    scheduled = false;
  }

  return {
    db,
    dialect: 'sqlite',
    availability,
    transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        refuseNested();
        queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void drain());
        }
      });
    },
    async bulkInsert(trx, table, columns, values) {
      // `native` is the one connection Kysely uses: while `trx` is open (and nothing else can
      // use the connection), these statements run inside its transaction and its savepoint,
      // so a failing call's rollback undoes them like any other write.
      if (!trx.isTransaction || !native.inTransaction) throw new Error('bulkInsert runs only inside database.transaction');
      const width = columns.length;
      const rows = rowCount(columns, values);
      if (rows > 0) deferCheckpoint();
      let perStatement = 1;
      while (perStatement * 2 * width <= MAX_PARAMETERS) perStatement *= 2;
      for (let start = 0; start < rows; start += perStatement) {
        while (perStatement > rows - start) perStatement >>= 1;
        const parameters = values.slice(start * width, (start + perStatement) * width);
        for (let i = 0; i < parameters.length; i++) if (parameters[i] === undefined) parameters[i] = null;
        // Bulk inserts run native statements from the cache: preparing a 1,000-row INSERT costs
        // about as much as running it. Chunk sizes are powers of two, so any row count needs at
        // most ~11 distinct statements (insertText returns the same string for each).
        prepare(insertText('sqlite', table, columns, perStatement)).run(parameters);
      }
    },
    changeToken: () => changeToken?.read() ?? null,
    ping() {
      return pingOrProbe(db, availability, (work) => this.transaction(work));
    },
    async close() {
      while (scheduled || queue.length > 0) await new Promise((r) => setTimeout(r, 5));
      await background?.close();
      changeToken?.close();
      await db.destroy();
    },
  };
}
