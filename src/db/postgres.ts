import type { Socket } from 'node:net';
import pg from 'pg';
import { Kysely, PostgresDialect, type PostgresCursor, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import { Availability } from './availability.js';
import { chunkedInsert } from './bulk-insert.js';
import { assertStorableParameters } from './storable-parameters.js';
import type { Database } from './database.js';
import { listenForChanges } from './postgres-changes.js';
import { findOrInsertPostgres } from './postgres-find-or-insert.js';
import { KeyedSlots, Slots } from '../shared/slots.js';
import { onOwnSocket } from './postgres-socket.js';
import { serverAnswered, startStallWatchdog, type StallTimeouts, type StallWatchdog } from './postgres-stall.js';
import type { DB } from './schema.js';
import { insideTransaction, pingOrProbe, refuseNested } from './transaction-scope.js';

const TIMESTAMPTZ_OID = 1184;
const parseTimestamp = pg.types.getTypeParser(TIMESTAMPTZ_OID);

// Repositories get the same RFC 3339 strings that SQLite stores. The parser is set per pool,
// so pg's global defaults stay untouched for anything else in the process.
const types = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (oid === TIMESTAMPTZ_OID && format !== 'binary') {
      return (value: string) => (parseTimestamp(value) as Date).toISOString();
    }
    return pg.types.getTypeParser(oid, 'text');
  },
};

export interface PostgresTimeouts extends StallTimeouts {
  /** Longest wait for a connection (a new one, or a free one from the pool). */
  connectTimeoutMs: number;
  /** Longest wait for one statement's answer; the server also cancels it (statement_timeout). */
  queryTimeoutMs: number;
}

// A frozen server is found within stallAfterMs + probeTimeoutMs (+ a tick): a 503 in under 4 s,
// while a statement that is merely slow may run for the whole query timeout.
export const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = {
  connectTimeoutMs: 5_000,
  queryTimeoutMs: 10_000,
  stallAfterMs: 1_500,
  probeTimeoutMs: 2_000,
};

/**
 * A pooled connection as Kysely uses it (its `query` and `release`, the only calls it makes),
 * in front of pg's client. Every failure of a connection stays with the request that used it.
 * A statement that got no answer in time (a frozen server) leaves its connection waiting for
 * that answer, and a later ROLLBACK queued behind it never goes out: such a connection is
 * closed, so the pool drops it and the server ends the open transaction; it is never handed to
 * another request still inside the old transaction.
 */
class GuardedConnection implements PostgresPoolClient {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly socket: Socket,
    private readonly watchdog: StallWatchdog,
  ) {}

  query<R>(text: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(text: string | PostgresCursor<R>, parameters: readonly unknown[] = []): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // The dialect is given no cursor class, so Kysely never passes one.
    if (typeof text !== 'string') throw new TypeError('cursors are not used');
    // Text PostgreSQL would refuse is a 422, not a 500.
    try {
      assertStorableParameters(text, parameters);
    } catch (error) {
      return Promise.reject(error);
    }
    // A connection to a frozen server would wait for its answer, and a ROLLBACK never goes out:
    // closed, so the pool drops it instead of lending it inside the old transaction.
    if (this.watchdog.frozen) {
      this.close();
      return Promise.reject(this.watchdog.frozenError());
    }
    const settled = this.watchdog.began(this);
    return this.client.query(text, parameters as unknown[]).then(
      (result) => {
        settled(true);
        // pg types `command` as any string: Kysely reads the counts of the four it names.
        return result as unknown as PostgresQueryResult<R>;
      },
      (error: unknown) => {
        settled(serverAnswered(error));
        if ((error as Error | null)?.message === 'Query read timeout') this.close();
        throw error;
      },
    );
  }

  release(): void {
    this.client.release();
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * The pool as Kysely sees it: each client's GuardedConnection; while the server is known
 * frozen, a request for a connection is refused at once, and so are those already waiting.
 */
function frozenAwarePool(pool: pg.Pool, guarded: WeakMap<pg.PoolClient, GuardedConnection>, watchdog: StallWatchdog) {
  const waiters = new Set<(error: Error) => void>();
  watchdog.onFrozen((error) => {
    for (const reject of waiters) reject(error);
    waiters.clear();
  });
  return {
    connect(): Promise<GuardedConnection> {
      if (watchdog.frozen) return Promise.reject(watchdog.frozenError());
      return new Promise((resolve, reject) => {
        waiters.add(reject);
        pool.connect().then(
          (client) => {
            if (waiters.delete(reject)) resolve(guarded.get(client)!);
            else client.release(true);
          },
          (error: unknown) => {
            waiters.delete(reject);
            reject(error);
          },
        );
      });
    },
    end: () => pool.end(),
  };
}

/** The share of the pool's connections that bulk stores of new components may hold at once. */
export const BULK_SHARE_OF_POOL = 0.4;

export function openPostgres(url: string, poolSize = 10, timeouts: PostgresTimeouts = DEFAULT_POSTGRES_TIMEOUTS): Database {
  const availability = new Availability();
  // Bounded waits: a database that does not answer becomes a 503, never a request hanging
  // forever. Opening a connection is bounded by the connect timeout (the client's own); waiting
  // for a free pooled connection, which under load is queueing, not an outage, may also last
  // until a stuck statement gave its connection back (the pool's).
  const connectTimeoutMs = timeouts.connectTimeoutMs;
  const sockets = new WeakMap<pg.Client, Socket>();
  // Each client on a socket of our own (postgres-socket.ts), which its GuardedConnection closes.
  class BoundedClient extends pg.Client {
    constructor(config: pg.ClientConfig) {
      const own = onOwnSocket({ ...config, connectionTimeoutMillis: connectTimeoutMs });
      super(own.config);
      sockets.set(this, own.socket);
    }
  }
  // Connections the bulk stores of new components (findOrInsert) may hold at once, all uploads
  // together: four in ten of the pool, so that the other six always serve requests.
  const bulkSlots = new Slots(Math.max(1, Math.floor(poolSize * BULK_SHARE_OF_POOL)));
  // Transactions that will wait for the same row lock (TransactionOptions.queue): one at a time.
  const lockQueues = new KeyedSlots(1);
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: types as never,
    Client: BoundedClient as never,
    connectionTimeoutMillis: timeouts.connectTimeoutMs + timeouts.queryTimeoutMs,
    query_timeout: timeouts.queryTimeoutMs,
    statement_timeout: timeouts.queryTimeoutMs,
    // A transaction left open by a client that vanished releases its row locks.
    idle_in_transaction_session_timeout: timeouts.queryTimeoutMs * 3,
    // Finds a connection whose server or network went away silently.
    keepAlive: true,
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', (error) => availability.failed(error));
  const watchdog = startStallWatchdog(url, timeouts);
  watchdog.onFrozen((error) => availability.failed(error));
  const changes = listenForChanges(url, {
    connectTimeoutMs: timeouts.connectTimeoutMs,
    syncTimeoutMs: timeouts.stallAfterMs + timeouts.probeTimeoutMs,
    watchdog,
  });
  watchdog.onFrozen(() => changes.reset());
  const guarded = new WeakMap<pg.PoolClient, GuardedConnection>();
  pool.on('connect', (client) => {
    const connection = new GuardedConnection(client, sockets.get(client)!, watchdog);
    guarded.set(client, connection);
    // A connection that dies while checked out emits 'error' on its client, which would end the
    // process without a listener.
    client.on('error', (error) => availability.failed(error));
    watchdog.opened(connection);
    client.on('end', () => watchdog.closed(connection));
  });
  pool.on('remove', (client) => {
    const connection = guarded.get(client);
    if (connection) watchdog.closed(connection);
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: frozenAwarePool(pool, guarded, watchdog) }) });
  const database: Database = {
    db,
    dialect: 'postgres',
    availability,
    // PostgreSQL commits durably (synchronous_commit=on) and group-commits concurrent
    // transactions itself; each call gets its own transaction on a pooled connection.
    transaction(work, options) {
      try {
        refuseNested();
      } catch (error) {
        return Promise.reject(error);
      }
      const run = () =>
        availability.track(
          db
            .transaction()
            .execute((trx) => insideTransaction(() => work(trx)))
            .then((value) => {
              changes.committed();
              return value;
            }),
        );
      return options?.queue ? lockQueues.run(options.queue, run) : run();
    },
    // Multi-row INSERTs of up to ~1,000 rows, one round trip each, on the transaction's connection.
    bulkInsert(trx, table, columns, values) {
      return chunkedInsert(trx, 'postgres', table, columns, values);
    },
    findOrInsert(rows) {
      return findOrInsertPostgres(database, rows, bulkSlots);
    },
    // Moves with every change of keys and organisations, notified by PostgreSQL (migration 013).
    changeToken: () => changes.token(),
    ping() {
      return pingOrProbe(db, availability, (work) => database.transaction(work));
    },
    async close() {
      watchdog.stop();
      await changes.close();
      await db.destroy();
    },
  };
  return database;
}
