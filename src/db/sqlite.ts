import { accessSync, chmodSync, closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { checkAutocommitWrite } from './autocommit-writes.js';
import { Availability } from './availability.js';
import { insertText, MAX_PARAMETERS, rowCount } from './bulk-insert.js';
import type { Database, Trx } from './database.js';
import type { DB } from './schema.js';
import { isUnavailable } from './errors.js';
import { createNativeStatements, type NativeStatements, registerNative, unregisterNative } from './native-statements.js';
import { findOrInsertNative } from './packed-rows.js';
import { createRowWriter } from './sqlite-row-writer.js';
import { createBackgroundCheckpointer } from './sqlite-checkpointer.js';
import { type ChangeToken, openWalChangeToken } from './sqlite-change-token.js';
import { createStatementCache, kyselyDatabase, type Prepare } from './sqlite-statement-cache.js';
import { insideTransaction, pingOrProbe, refuseNested } from './transaction-scope.js';

interface Pending {
  work: (trx: Trx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

const MAX_BATCH = 512;
/** SQLite's default: the WAL pages after which a commit checkpoints. */
const AUTO_CHECKPOINT_PAGES = 1000;

/** The one native connection and everything bound to it; rebuilt when it has to be reopened. */
interface Connection {
  native: SQLite.Database;
  prepare: Prepare;
  savepoint: SQLite.Statement;
  release: SQLite.Statement;
  rollbackTo: SQLite.Statement;
  statements: ReturnType<typeof createNativeStatements>;
  changeToken: ChangeToken | null;
}

/** A storage failure as SQLite would report it, so it is classified (503) and logged like one. */
function storageError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * Why the database's location cannot be written right now, or null. A file is created, written,
 * synced and removed: a filesystem that failed and turned itself read-only (ext4's emergency
 * read-only) still passes access(2), and SQLite opens a file it cannot write read-only without
 * a word, a connection that stays read-only after the location is writable again.
 */
function locationWriteError(path: string): Error | null {
  const probe = join(dirname(path), `.cra-write-probe-${process.pid}`);
  try {
    mkdirSync(dirname(path), { recursive: true });
    if (existsSync(path)) accessSync(path, constants.W_OK);
    const fd = openSync(probe, 'w');
    try {
      writeSync(fd, 'probe');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      rmSync(probe, { force: true });
    }
    return null;
  } catch (error) {
    return error as Error;
  }
}

function assertWritable(path: string): void {
  const why = locationWriteError(path);
  if (why) throw storageError('SQLITE_READONLY', `the database location cannot be written (${why.message})`);
}

/**
 * The database holds password hashes, sealed secrets and every organisation's data: its files
 * are the owner's alone (0600, like console-secret beside it), whatever the umask. The database
 * file is created so before SQLite opens it; SQLite gives its WAL and shared-memory files the
 * database file's mode. Files of an existing database are narrowed to 0600 when it opens.
 */
function ownerOnly(path: string): void {
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch (error) {
      // Not there (no WAL yet), or not ours to change (a read-only mount, another owner).
      if (!['ENOENT', 'EPERM', 'EROFS'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }
}

function connect(path: string): Connection {
  if (path !== ':memory:') {
    assertWritable(path);
    ownerOnly(path);
  }
  const native = new SQLite(path);
  try {
    // WAL lets readers run beside the writer; synchronous=FULL makes every commit durable
    // (fsync of the WAL) before the transaction returns.
    const walMode = native.pragma('journal_mode = WAL', { simple: true }) === 'wal';
    native.pragma('synchronous = FULL');
    native.pragma('foreign_keys = ON');
    native.pragma('busy_timeout = 10000');
    // The first read in WAL mode creates the wal-index whose header is the change token.
    native.prepare('select 1 from sqlite_master limit 1').get();
    const prepare = createStatementCache(native);
    return {
      native,
      prepare,
      savepoint: native.prepare('savepoint w'),
      release: native.prepare('release savepoint w'),
      rollbackTo: native.prepare('rollback to savepoint w'),
      statements: createNativeStatements(native, prepare),
      // Only a WAL database has a wal-index; anything else (in memory) reads keys every time.
      changeToken: walMode && path !== ':memory:' ? openWalChangeToken(path) : null,
    };
  } catch (error) {
    native.close();
    throw error;
  }
}

/**
 * Storage errors after which the connection itself may be stuck: opened read-only, its file
 * gone, or its filesystem failed (an I/O error, then read-only). It is closed, so its files can
 * be released and repaired, and opened again at the next use that finds the location writable.
 */
const REOPEN = /^SQLITE_(READONLY|CANTOPEN|IOERR)/;

/**
 * SQLite says `disk I/O error` when the filesystem under an open file turned read-only; the
 * location's own state names the real cause for the log line.
 */
function explainStorageError(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (path === ':memory:' || typeof code !== 'string' || !REOPEN.test(code)) return error;
  const why = locationWriteError(path);
  return why ? storageError(code, `${(error as Error).message}; the database location cannot be written (${why.message})`) : error;
}

export function openSqlite(path: string): Database {
  // A location that cannot be written or opened right now (read-only, failing) does not stop
  // the process: the connection is opened at the first use that finds it usable, and until
  // then every use fails with that storage error (503; migrations wait for it at start).
  let conn: Connection | null = null;
  try {
    conn = connect(path);
  } catch (error) {
    if (!isUnavailable(error)) throw error;
  }
  function current(): Connection {
    conn ??= connect(path);
    return conn;
  }
  function disconnect(): void {
    const closing = conn;
    conn = null;
    if (!closing) return;
    closing.changeToken?.close();
    try {
      closing.native.close();
    } catch {
      // Already unusable: nothing to release.
    }
  }
  const db: Kysely<DB> = new Kysely<DB>({
    dialect: new SqliteDialect({ database: kyselyDatabase(current, disconnect, (sql) => checkAutocommitWrite(db, sql)) }),
  });
  // The side door follows the connection: none while there is none (queries then go through
  // Kysely, which reports the storage error).
  const nativeOutside: NativeStatements = { tryAll: (sql, p) => (conn ? conn.statements.outside.tryAll(sql, p) : undefined) };
  registerNative(db, nativeOutside);

  // A checkpoint copies WAL pages into the database file and fsyncs it. SQLite runs one inside
  // the commit that takes the WAL past 1,000 pages, and that commit's callers wait for it:
  // ~10 ms after a 10,000-row bulk insert, far more after 100,000. So a batch that bulk-inserts
  // commits with the automatic checkpoint off, and the checkpoint runs after its callers are
  // answered, in a thread of its own (sqlite-checkpointer.ts), or on this one if that thread
  // cannot run. The commit itself is durable once the WAL is synced; a checkpoint only moves
  // pages. The automatic checkpoint comes back once no bulk insert's checkpoint is owed.
  let background = path !== ':memory:' ? createBackgroundCheckpointer(path) : null;
  let autoCheckpointOff = false;
  let checkpointDue = false;
  let checkpointPending = false;
  function deferCheckpoint(native: SQLite.Database): void {
    checkpointDue = true;
    if (autoCheckpointOff) return;
    native.pragma('wal_autocheckpoint = 0');
    autoCheckpointOff = true;
  }
  function checkpointAfterBatch(): void {
    const native = conn?.native;
    if (checkpointPending || !native?.open) return;
    if (checkpointDue) {
      checkpointDue = false;
      checkpointPending = true;
      const finished = () => {
        checkpointPending = false;
        checkpointAfterBatch();
      };
      if (background?.request(finished)) return;
      setImmediate(() => {
        if (!native.open) {
          checkpointPending = false;
          return;
        }
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
  /** With the connection gone (a storage failure), the checkpoint thread lets go of the files too. */
  function releaseCheckpointer(): void {
    if (!background) return;
    void background.close();
    background = createBackgroundCheckpointer(path);
    autoCheckpointOff = false;
    checkpointDue = false;
  }

  // Group commit: calls that arrive while a batch is being written wait for the next batch,
  // which commits them all with one fsync.
  const queue: Pending[] = [];
  let scheduled = false;
  const availability = new Availability();

  // Large batches of rows (findOrInsert) are written by a thread of their own, on its own
  // connection. While it holds SQLite's write lock, this connection must not try to write: it
  // would wait for the lock on the event loop (busy_timeout). So writes of this process take
  // turns: a group-commit batch or a row writer's batch, one at a time, in the order they came.
  const rowWriter = path !== ':memory:' ? createRowWriter(path) : null;
  let writerTurn: Promise<unknown> = Promise.resolve();
  function inTurn<T>(write: () => Promise<T>): Promise<T> {
    const turn = writerTurn.then(write, write);
    writerTurn = turn.catch(() => undefined);
    return turn;
  }

  async function runBatch(batch: Pending[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      const c = current();
      await db.transaction().execute(async (trx) => {
        // The batch holds the connection: its compiled statements may run natively inside it.
        registerNative(trx, c.statements.inside);
        try {
          for (const item of batch) {
            c.savepoint.run();
            try {
              const value = await insideTransaction(() => item.work(trx));
              c.release.run();
              outcomes.push({ ok: true, value });
            } catch (error) {
              // A full disk, a read-only file or an I/O error may end the whole transaction
              // (SQLite rolls it back itself): nothing of the batch can commit, and the
              // storage error, not a failing `rollback to`, is what every caller must hear.
              if (!c.native.inTransaction) throw error;
              c.rollbackTo.run();
              c.release.run();
              outcomes.push({ ok: false, error });
            }
          }
        } finally {
          unregisterNative(trx);
        }
      });
    } catch (error) {
      if (REOPEN.test(String((error as { code?: unknown } | null)?.code))) {
        if (availability.available) availability.failed(explainStorageError(error, path));
        disconnect();
        releaseCheckpointer();
      } else availability.failed(error);
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
    while (queue.length > 0) await inTurn(() => runBatch(queue.splice(0, MAX_BATCH)));
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
      const c = conn;
      if (!trx.isTransaction || !c?.native.inTransaction) throw new Error('bulkInsert runs only inside database.transaction');
      const width = columns.length;
      const rows = rowCount(columns, values);
      if (rows > 0) deferCheckpoint(c.native);
      let perStatement = 1;
      while (perStatement * 2 * width <= MAX_PARAMETERS) perStatement *= 2;
      for (let start = 0; start < rows; start += perStatement) {
        while (perStatement > rows - start) perStatement >>= 1;
        const parameters = values.slice(start * width, (start + perStatement) * width);
        for (let i = 0; i < parameters.length; i++) if (parameters[i] === undefined) parameters[i] = null;
        // Bulk inserts run native statements from the cache: preparing a 1,000-row INSERT costs
        // about as much as running it. Chunk sizes are powers of two, so any row count needs at
        // most ~11 distinct statements (insertText returns the same string for each).
        c.prepare(insertText('sqlite', table, columns, perStatement)).run(parameters);
      }
    },
    findOrInsert(rows) {
      if (rows.rows.length === 0) return Promise.resolve(new Float64Array(0));
      // In memory there is no second connection: the rows go into a group-commit batch.
      if (!rowWriter) return this.transaction(async () => findOrInsertNative(current().native, rows));
      return inTurn(async () => {
        // Its commit takes the WAL past the automatic checkpoint, which the next commit of
        // this connection would then run on the event loop: it runs in the background after.
        deferCheckpoint(current().native);
        try {
          const ids = await rowWriter.write(rows);
          availability.succeeded();
          return ids;
        } catch (error) {
          if (isUnavailable(error)) availability.failed(explainStorageError(error, path));
          throw error;
        } finally {
          checkpointAfterBatch();
        }
      });
    },
    changeToken: () => conn?.changeToken?.readShared() ?? Promise.resolve(null),
    ping() {
      return pingOrProbe(db, availability, (work) => this.transaction(work));
    },
    async close() {
      while (scheduled || queue.length > 0) await new Promise((r) => setTimeout(r, 5));
      await writerTurn;
      await db.destroy();
      await rowWriter?.close();
      await background?.close();
      disconnect();
    },
  };
}
