import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type DatabaseFrozenError, startStallWatchdog } from '../../src/db/postgres-stall.js';
import { holdLoopUntil } from '../helpers/hold-loop.js';

// The stall watchdog (src/db/postgres-stall.ts) against a server that takes connections and
// never answers, as a stopped PostgreSQL does (its kernel still completes the handshake): no
// PostgreSQL needed. A frozen PostgreSQL itself is test/scale/postgres-faults.test.ts; a slow
// one, and a slow host, test/db/postgres-stall.test.ts.
describe('the stall watchdog, against a server that never answers', () => {
  let server: Server;
  let url: string;
  const sockets = new Set<Socket>();
  before(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `postgres://postgres@127.0.0.1:${(server.address() as { port: number }).port}/frozen`;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  /** A watchdog watching one connection whose statement never gets an answer; resolves with the error once frozen. */
  function watchStuckStatement(timeouts: { stallAfterMs: number; probeTimeoutMs: number }) {
    const watchdog = startStallWatchdog(url, timeouts);
    let closed = false;
    const connection = { close: () => (closed = true) };
    watchdog.opened(connection);
    watchdog.began(connection);
    const frozen = new Promise<DatabaseFrozenError>((resolve) => watchdog.onFrozen(resolve));
    return { watchdog, frozen, closed: () => closed };
  }

  it('finds it frozen after the stall and the probe, closes its connections and refuses new work', async () => {
    const started = performance.now();
    const { watchdog, frozen, closed } = watchStuckStatement({ stallAfterMs: 200, probeTimeoutMs: 300 });
    try {
      const error = await frozen;
      const took = performance.now() - started;
      assert.ok(took >= 500, `found after ${Math.round(took)} ms, not before the stall and the probe`);
      assert.equal(error.message, 'PostgreSQL did not answer a probe within 300 ms');
      assert.equal(error.code, 'ETIMEDOUT');
      assert.equal(watchdog.frozen, true);
      assert.equal(closed(), true, 'the watched connection was closed');
    } finally {
      watchdog.stop();
    }
  });

  it('does not call a server frozen that answers other statements while the probe waits', async () => {
    // A new connection gets no answer (this server), but statements on the connections the
    // process has are answered: a server slow to take connections (a busy host forks its
    // backends slowly), alive all the same.
    const { watchdog, closed } = watchStuckStatement({ stallAfterMs: 100, probeTimeoutMs: 200 });
    const busy = { close() {} };
    const answering = setInterval(() => watchdog.began(busy)(true), 20);
    try {
      await new Promise((r) => setTimeout(r, 1_500));
      assert.equal(watchdog.frozen, false);
      assert.equal(closed(), false);
    } finally {
      clearInterval(answering);
      watchdog.stop();
    }
  });

  it('finds it frozen on a host that keeps holding the event loop up, once it has run long enough', async () => {
    const { watchdog, frozen, closed } = watchStuckStatement({ stallAfterMs: 200, probeTimeoutMs: 300 });
    try {
      // Held in bursts of 150 ms: the process runs a little between them, and the server's
      // silence adds up in that running time only.
      await holdLoopUntil(frozen, 150);
      assert.equal(watchdog.frozen, true);
      assert.equal(closed(), true);
    } finally {
      watchdog.stop();
    }
  });
});
