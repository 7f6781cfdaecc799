import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './cli.js';
import { freePort } from './services.js';

const SERVER = fileURLToPath(new URL('../../dist/server.js', import.meta.url));

export interface RunningServer {
  url: string;
  port: number;
  process: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  logs(): string;
  /**
   * Waits until the output holds what `found` looks for, and returns the output then. A line is
   * written after the answer it describes is sent (a request's line once it is answered, the
   * banner once the server listens), and reaches this process through a pipe: read at once, it
   * may not be there yet.
   */
  waitForLog(found: RegExp | ((logs: string) => boolean), what?: string): Promise<string>;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the built server (`npm start`'s entry) as a real process on a free port, and resolves
 * once it is ready: /healthz answers from the moment it listens (it listens even while its
 * database is down). Its SBOM parse workers do not warm up (SBOM_WARM_UP=false) unless `env`
 * says so: a suite that starts dozens of servers on two cores would spend seconds of CPU on each
 * (sbom-reader-lanes.test.ts tests the warm-up).
 */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'info', SBOM_WARM_UP: 'false', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await untilReady(child, url, () => output);
  return {
    url,
    port,
    process: child,
    logs: () => output,
    async waitForLog(found, what = String(found)) {
      const holds = typeof found === 'function' ? found : (logs: string) => found.test(logs);
      for (const deadline = Date.now() + LOG_WAIT_MS; !holds(output); ) {
        if (Date.now() > deadline) assert.fail(`the server's output did not show ${what} within ${LOG_WAIT_MS} ms:\n${output}`);
        await pause(20);
      }
      return output;
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** How long a line may take to reach this process after what it describes happened. */
const LOG_WAIT_MS = 30_000;
/** A start that has used no CPU for this long is stuck, not slow. */
const IDLE_START_MS = 60_000;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time a process has used so far (user + system), in clock ticks; null where /proc is not. */
function cpuTicks(pid: number): number | null {
  try {
    // The fields after the command name (which may hold spaces), from the state on: utime, stime are 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/**
 * Waits until /healthz answers, however long the start takes: a start costs the server 3–4 s of
 * CPU, and on a host whose cores other work keeps busy that took 16 s and more (a fixed budget
 * of 20 s failed). It fails as soon as the process exits, and when the process has used no CPU
 * for a minute without listening (a start that hangs), never because the host is slow.
 */
async function untilReady(child: ChildProcess, url: string, output: () => string): Promise<void> {
  let ticks = child.pid === undefined ? null : cpuTicks(child.pid);
  let progressAt = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`server exited with ${child.exitCode ?? child.signalCode}:\n${output()}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    const now = child.pid === undefined ? null : cpuTicks(child.pid);
    if (now !== ticks) [ticks, progressAt] = [now, Date.now()];
    else if (ticks !== null && Date.now() - progressAt > IDLE_START_MS) {
      child.kill('SIGKILL');
      throw new Error(`server did not start: no CPU used for ${IDLE_START_MS / 1000} s, and not listening:\n${output()}`);
    }
    await pause(50);
  }
}

/** The server logged nothing at error level (pino 50); names the first such line if it did. */
export function assertNoErrorLogged(server: RunningServer): void {
  const line = server
    .logs()
    .split('\n')
    .find((l) => l.includes('"level":50'));
  assert.equal(line, undefined, line);
}
