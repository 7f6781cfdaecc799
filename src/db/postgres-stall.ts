import pg from 'pg';
import { afterRunning, runningNow } from '../shared/running-time.js';
import { onOwnSocket } from './postgres-socket.js';

/**
 * Tells a frozen PostgreSQL (a stopped process, a hung host, a network that drops packets)
 * from a slow statement, in seconds rather than a query timeout. When a statement has waited
 * `stallAfterMs`, a fresh connection asks `select 1` with `probeTimeoutMs` to answer: a server
 * that answers is only busy, and nothing happens; one that does not is frozen. Then every
 * connection to it is closed (their statements fail at once, and the server ends their
 * transactions when it wakes), waiting and new requests are refused at once, and the probe is
 * repeated each second until the server answers again. A probe refused for another reason
 * (connection refused, too many connections) decides nothing: those failures reach the
 * requests themselves without delay.
 *
 * A slow host is not a frozen server. Both waits count only time in which this process ran
 * (shared/running-time.ts): seconds in which the host did not schedule it, or a long task held
 * its event loop, are not the server's silence, and an answer that came meanwhile is read before
 * the probe's verdict. And a server that answered any statement of this process while the probe
 * waited is alive, however slowly it takes a new connection.
 */
export interface StallTimeouts {
  /** A statement without an answer for this long makes the watchdog probe the server. */
  stallAfterMs: number;
  /** The probe's own bound, its connection included. */
  probeTimeoutMs: number;
}

export class DatabaseFrozenError extends Error {
  // ETIMEDOUT: isUnavailable() makes it the contract's 503 with Retry-After.
  readonly code = 'ETIMEDOUT';
  constructor(probeTimeoutMs: number) {
    super(`PostgreSQL did not answer a probe within ${probeTimeoutMs} ms`);
    this.name = 'DatabaseFrozenError';
  }
}

/** A connection the watchdog watches: closed at once when the server is found frozen. */
export interface WatchedConnection {
  close(): void;
}

/** Whether a statement's outcome came from the server (a result, or an error it sent). */
export const serverAnswered = (error?: unknown) => error === undefined || error instanceof pg.DatabaseError;

export interface StallWatchdog {
  /** True while the server is known frozen: new work is refused at once. */
  readonly frozen: boolean;
  /** The error new work gets while frozen. */
  frozenError(): DatabaseFrozenError;
  /**
   * A round trip began on `connection`; call the returned function when it settles, saying
   * whether the server answered it (serverAnswered).
   */
  began(connection: WatchedConnection): (answered: boolean) => void;
  /** A connection the pool made (closed when the server is found frozen). */
  opened(connection: WatchedConnection): void;
  closed(connection: WatchedConnection): void;
  /** Called once each time the server is found frozen. */
  onFrozen(listener: (error: DatabaseFrozenError) => void): void;
  stop(): void;
}

const TICK_MS = 250;
const FROZEN_PROBE_INTERVAL_MS = 1_000;

type Verdict = 'yes' | 'no' | 'unknown';

/** Whether the server answers `select 1` on a new connection within `timeoutMs` of running time. */
async function answers(url: string, timeoutMs: number): Promise<Verdict> {
  const { config, socket } = onOwnSocket({ connectionString: url });
  const client = new pg.Client(config);
  client.on('error', () => {});
  let late = false;
  // A client stuck in its connection attempt to a frozen server holds a socket otherwise.
  const cancel = afterRunning(timeoutMs, () => {
    late = true;
    socket.destroy();
  });
  try {
    await client.connect();
    await client.query('select 1');
    return 'yes';
  } catch {
    return late ? 'no' : 'unknown';
  } finally {
    cancel();
    client.end().catch(() => {});
    socket.destroy();
  }
}

export function startStallWatchdog(url: string, timeouts: StallTimeouts): StallWatchdog {
  const connections = new Set<WatchedConnection>();
  // Start of the oldest unanswered round trip per connection, in running time.
  const waiting = new Map<WatchedConnection, number>();
  const listeners: Array<(error: DatabaseFrozenError) => void> = [];
  let frozen = false;
  let probing = false;
  let lastProbe = 0;
  // When the server last answered a statement of this process, in running time.
  let answeredAt = Number.NEGATIVE_INFINITY;

  function freeze(): void {
    frozen = true;
    const error = new DatabaseFrozenError(timeouts.probeTimeoutMs);
    for (const connection of connections) connection.close();
    waiting.clear();
    for (const listener of listeners) listener(error);
  }

  async function probe(): Promise<void> {
    probing = true;
    const since = runningNow();
    lastProbe = since;
    try {
      let verdict = await answers(url, timeouts.probeTimeoutMs);
      // Another connection had an answer meanwhile: slow to take a new connection, not frozen.
      if (verdict === 'no' && answeredAt >= since) verdict = 'yes';
      if (verdict === 'yes') frozen = false;
      else if (verdict === 'no' && !frozen) freeze();
    } finally {
      probing = false;
    }
  }

  const timer = setInterval(() => {
    if (probing) return;
    const now = runningNow();
    if (frozen) {
      if (now - lastProbe >= FROZEN_PROBE_INTERVAL_MS) void probe();
      return;
    }
    for (const started of waiting.values()) {
      if (now - started >= timeouts.stallAfterMs) {
        void probe();
        return;
      }
    }
  }, TICK_MS);
  timer.unref();

  return {
    get frozen() {
      return frozen;
    },
    frozenError: () => new DatabaseFrozenError(timeouts.probeTimeoutMs),
    began(connection) {
      if (!waiting.has(connection)) waiting.set(connection, runningNow());
      return (answered) => {
        waiting.delete(connection);
        if (answered) answeredAt = runningNow();
      };
    },
    opened: (connection) => connections.add(connection),
    closed(connection) {
      connections.delete(connection);
      waiting.delete(connection);
    },
    onFrozen: (listener) => listeners.push(listener),
    stop: () => clearInterval(timer),
  };
}
