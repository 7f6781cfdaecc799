import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type DatabaseFrozenError, startStallWatchdog } from '../../src/db/postgres-stall.js';

// The stall watchdog (src/db/postgres-stall.ts) against a server that takes connections and
// never answers, as a stopped PostgreSQL does (its kernel still completes the handshake): no
// PostgreSQL needed. A frozen PostgreSQL itself is test/scale/postgres-faults.test.ts; a slow one
// test/db/postgres-stall.test.ts.
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
});
