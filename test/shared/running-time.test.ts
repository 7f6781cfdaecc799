import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { afterRunning, runningNow } from '../../src/shared/running-time.js';
import { holdLoop } from '../helpers/hold-loop.js';

// The clock the PostgreSQL stall watchdog and the Redis store wait by: time in which this
// process ran. Its error is at most one tick (100 ms) per hold-up, counted as running.
const TICK_MS = 100;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('running time', () => {
  it('moves, never faster than the time that passes', async () => {
    const start = runningNow();
    const wall = performance.now();
    await pause(300);
    const ran = runningNow() - start;
    const passed = performance.now() - wall;
    // On an idle host the two are about equal; on a busy one the process ran less of the time.
    assert.ok(ran > 0 && ran <= passed, `ran ${ran} ms of ${passed}`);
  });

  it('leaves out a hold-up of the event loop, overdue or past', async () => {
    await pause(10);
    const start = runningNow();
    holdLoop(1_000);
    // Still inside the same callback: the tick that should have run meanwhile is overdue.
    assert.ok(runningNow() - start <= TICK_MS + 5, `overdue: ran ${runningNow() - start} ms`);
    await pause(0);
    assert.ok(runningNow() - start <= TICK_MS + 50, `past: ran ${runningNow() - start} ms`);
  });

  it('afterRunning waits for running time, not for time that passed', async () => {
    const wall = performance.now();
    let firedAt = 0;
    const fired = new Promise<void>((resolve) =>
      afterRunning(300, () => {
        firedAt = performance.now() - wall;
        resolve();
      }),
    );
    holdLoop(600);
    await fired;
    // 600 ms passed at once, then at least 300 - TICK_MS of running time more.
    assert.ok(firedAt >= 600 + 300 - TICK_MS, `fired after ${firedAt} ms`);
  });

  it('afterRunning lets an answer that came during a hold-up, unread, win', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const accepted = new Promise<Socket>((r) => server.once('connection', r));
    const client = connect((server.address() as { port: number }).port, '127.0.0.1');
    const peer = await accepted;
    await new Promise((r) => (client.readyState === 'open' ? r(null) : client.once('connect', r)));
    const order: string[] = [];
    client.once('data', () => order.push('answer'));
    // The answer is in this socket's receive buffer before the deadline passes; the loop is held
    // up until long after it, and its timers run before its sockets are read.
    peer.write('answer');
    afterRunning(1, () => order.push('timeout'));
    holdLoop(300);
    await pause(50);
    client.destroy();
    peer.destroy();
    await new Promise<void>((r) => server.close(() => r()));
    assert.deepEqual(order, ['answer', 'timeout']);
  });
});
