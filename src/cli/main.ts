#!/usr/bin/env node
import { run } from './run.js';

// The `cra-admin` executable: the program of run.ts on this process's arguments, environment
// and output.

/**
 * Exits once everything written so far has reached stdout and stderr. On a pipe, Node writes
 * what the pipe takes at once (64 KiB) and queues the rest; process.exit() would drop the queue.
 */
function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

run(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then(exitWhenFlushed);
