import { performance } from 'node:perf_hooks';

// Time in which this process ran, as opposed to time that passed. On a host whose cores other
// work keeps busy, or while one long task holds the event loop, seconds can pass in which no
// timer and no socket of this process is served; an answer that arrived meanwhile waits in the
// kernel, and when the loop comes back its timers run before its sockets are read. A timeout
// that counts those seconds blames whoever it waited for (PostgreSQL, Redis) for time the
// process itself did not run. One timer (never keeping the process alive) measures how late it
// fires: that lateness, and the lateness of a tick that is overdue right now, is time the event
// loop was not running, left out of runningNow().

const TICK_MS = 100;
/** Milliseconds the ticks ran late, summed. */
let lost = 0;
/** When the pending tick is due (performance.now()); -1 until the first reading. */
let due = -1;

function tick(): void {
  const now = performance.now();
  lost += Math.max(0, now - due);
  schedule(now);
}

function schedule(now: number): void {
  due = now + TICK_MS;
  setTimeout(tick, TICK_MS).unref();
}

/**
 * A reading in milliseconds of a clock that stands still while the event loop is held up: only
 * differences between two readings mean anything. Time the loop served other callbacks on time
 * counts as running; time it was late (a host that did not schedule the process, a blocking
 * task, a stop signal) does not.
 */
export function runningNow(): number {
  const now = performance.now();
  if (due < 0) schedule(now);
  return now - lost - Math.max(0, now - due);
}

/**
 * Calls `fire` once `ms` of running time have passed since the call, and after this process has
 * read what its sockets received meanwhile (an answer that came in time, but was not read
 * because the loop was held up, wins). Returns what cancels it.
 */
export function afterRunning(ms: number, fire: () => void): () => void {
  const start = runningNow();
  let cancelled = false;
  let timer: NodeJS.Timeout;
  const check = () => {
    const left = ms - (runningNow() - start);
    if (left > 0) timer = setTimeout(check, left);
    else setImmediate(() => cancelled || fire());
  };
  timer = setTimeout(check, ms);
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}
