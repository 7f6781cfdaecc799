import pg from 'pg';

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

/** The socket under a pg client (not in pg's type definitions). */
export function socketOf(client: pg.Client | pg.PoolClient): { destroy(): void; ref?(): void; unref?(): void } | undefined {
  return (client as unknown as { connection?: { stream?: { destroy(): void; ref?(): void; unref?(): void } } }).connection?.stream;
}

export function closeSocket(client: pg.Client | pg.PoolClient): void {
  socketOf(client)?.destroy();
}

export interface StallWatchdog {
  /** True while the server is known frozen: new work is refused at once. */
  readonly frozen: boolean;
  /** The error new work gets while frozen. */
  frozenError(): DatabaseFrozenError;
  /** A statement on `client` began; call the returned function when it settles. */
  began(client: pg.PoolClient): () => void;
  /** A connection the pool made (closed when the server is found frozen). */
  opened(client: pg.PoolClient): void;
  closed(client: pg.PoolClient): void;
  /** Called once each time the server is found frozen. */
  onFrozen(listener: (error: DatabaseFrozenError) => void): void;
  stop(): void;
}

const TICK_MS = 250;
const FROZEN_PROBE_INTERVAL_MS = 1_000;

export function startStallWatchdog(url: string, timeouts: StallTimeouts): StallWatchdog {
  const clients = new Set<pg.PoolClient>();
  // Start of the oldest unanswered statement per connection.
  const waiting = new Map<pg.PoolClient, number>();
  const listeners: Array<(error: DatabaseFrozenError) => void> = [];
  let frozen = false;
  let probing = false;
  let lastProbe = 0;

  async function answers(): Promise<'yes' | 'no' | 'unknown'> {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: timeouts.probeTimeoutMs,
      query_timeout: timeouts.probeTimeoutMs,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
      return 'yes';
    } catch (error) {
      const message = (error as Error).message ?? '';
      return /timeout/i.test(message) ? 'no' : 'unknown';
    } finally {
      client.end().catch(() => {});
      // A client stuck in its connection attempt to a frozen server holds a socket otherwise.
      closeSocket(client);
    }
  }

  function freeze(): void {
    frozen = true;
    const error = new DatabaseFrozenError(timeouts.probeTimeoutMs);
    for (const client of clients) closeSocket(client);
    waiting.clear();
    for (const listener of listeners) listener(error);
  }

  async function probe(): Promise<void> {
    probing = true;
    lastProbe = Date.now();
    try {
      const verdict = await answers();
      if (verdict === 'yes') frozen = false;
      else if (verdict === 'no' && !frozen) freeze();
    } finally {
      probing = false;
    }
  }

  const timer = setInterval(() => {
    if (probing) return;
    const now = Date.now();
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
    began(client) {
      if (!waiting.has(client)) waiting.set(client, Date.now());
      return () => waiting.delete(client);
    },
    opened: (client) => clients.add(client),
    closed(client) {
      clients.delete(client);
      waiting.delete(client);
    },
    onFrozen: (listener) => listeners.push(listener),
    stop: () => clearInterval(timer),
  };
}
