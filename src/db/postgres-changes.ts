import pg from 'pg';
import { CHANGES_CHANNEL } from './migrations/013-change-notices.js';
import type { Socket } from 'node:net';
import { onOwnSocket } from './postgres-socket.js';
import { serverAnswered, type StallWatchdog } from './postgres-stall.js';

/**
 * PostgreSQL's change token: a number that moves whenever API keys or organisations change,
 * in this process or any other. Triggers (migration 013) notify `cra_changes` when such a
 * change commits; one connection of this process listens. The token moves at each notice, at
 * each commit of this process (before its caller hears of the commit: what this instance wrote
 * it reads at once), and whenever the listening connection is made, lost or made again (notices
 * may have been missed meanwhile). While it is not listening the token is null, so readers query.
 *
 * A notice travels on its own: it may reach this process after the committer has told its
 * client, and that client may already be asking this instance. So `token()` answers after a
 * round trip on the listening connection that starts after the call: PostgreSQL delivers the
 * notices of every commit before it (the committer signals the listeners before it answers, and
 * a listener sends what it was signalled before the answer to its next query). Callers that
 * arrive while a round trip is out share the next one: one `select 1` per batch, not per request.
 * The stall watchdog watches each round trip like any statement (a frozen server releases the
 * callers with a null token); one without an answer within `syncTimeoutMs` loses the connection.
 * The connection is made at the first call of `token()`: processes that never cache (cra-admin)
 * never make it.
 */
export interface ChangeListener {
  /** A token that reflects every change committed before the call; null while not listening. */
  token(): Promise<string | null>;
  /** A transaction of this process committed. */
  committed(): void;
  /** The listening connection cannot be trusted (the server was found frozen): made again. */
  reset(): void;
  close(): Promise<void>;
}

const RECONNECT_MS = 1_000;
export const LISTENER_NAME = 'cra-change-listener';

export interface ListenOptions {
  connectTimeoutMs: number;
  /** A round trip without an answer for this long loses the connection. */
  syncTimeoutMs: number;
  /** Watches each round trip (the connection is closed when the server is found frozen). */
  watchdog: Pick<StallWatchdog, 'began'>;
}

export function listenForChanges(url: string, options: ListenOptions): ChangeListener {
  const { connectTimeoutMs, syncTimeoutMs } = options;
  let generation = 0;
  let listening = false;
  let closed = false;
  let client: pg.Client | null = null;
  // The socket under each client (made by us: postgres-socket.ts).
  const sockets = new WeakMap<pg.Client, Socket>();
  let retry: NodeJS.Timeout | null = null;
  // Callers waiting for the next round trip, and whether one is out.
  let waiting: Array<() => void> = [];
  let syncing = false;

  const current = () => (listening ? String(generation) : null);

  function release(): void {
    const batch = waiting;
    waiting = [];
    for (const resolve of batch) resolve();
  }

  async function sync(on: pg.Client): Promise<void> {
    syncing = true;
    while (waiting.length > 0 && client === on && listening) {
      const batch = waiting;
      waiting = [];
      const settled = options.watchdog.began({ close: () => sockets.get(on)?.destroy() });
      try {
        // Bounded by the client's query_timeout (syncTimeoutMs).
        await on.query('select 1');
        settled(true);
      } catch (error) {
        settled(serverAnswered(error));
        lost(on);
      }
      for (const resolve of batch) resolve();
    }
    syncing = false;
    // Left while callers wait (the connection was lost, and perhaps made again since): they wait
    // for a round trip on the new connection, or read the null token now.
    if (waiting.length > 0) {
      if (listening && client) void sync(client);
      else release();
    }
  }

  function lost(which: pg.Client): void {
    if (client !== which) return;
    client = null;
    listening = false;
    generation++;
    release();
    which.end().catch(() => {});
    sockets.get(which)?.destroy();
    if (!closed && retry === null) {
      retry = setTimeout(() => {
        retry = null;
        void connect();
      }, RECONNECT_MS);
      retry.unref();
    }
  }

  async function connect(): Promise<void> {
    const own = onOwnSocket({
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
      // A statement (LISTEN, a round trip) without an answer for this long loses the connection.
      query_timeout: syncTimeoutMs,
      // Named, so an operator (and a test) can tell it in pg_stat_activity.
      application_name: LISTENER_NAME,
    });
    const next = new pg.Client(own.config);
    sockets.set(next, own.socket);
    client = next;
    next.on('notification', () => {
      generation++;
    });
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (client !== next || closed) return;
      generation++;
      listening = true;
      // The connection only waits for notices: it must not keep the process alive.
      own.socket.unref();
    } catch {
      lost(next);
    }
  }

  return {
    async token() {
      if (!listening) {
        if (client === null && retry === null && !closed) void connect();
        return null;
      }
      const on = client!;
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!syncing) {
          syncing = true;
          // Started after this turn's other callers have joined the batch.
          queueMicrotask(() => void sync(on));
        }
      });
      return current();
    },
    committed() {
      generation++;
    },
    reset() {
      if (client) lost(client);
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      listening = false;
      release();
      const last = client;
      client = null;
      if (!last) return;
      // Its socket was unref'd: made to count again, or the wait for it to close would not keep
      // the process alive and never end.
      sockets.get(last)?.ref();
      await last.end().catch(() => {});
    },
  };
}
