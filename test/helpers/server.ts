import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
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
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the built server (`npm start`'s entry) as a real process on a free port. Its SBOM
 * parse workers do not warm up (SBOM_WARM_UP=false) unless `env` says so: a suite that starts
 * dozens of servers on two cores would spend seconds of CPU on each (sbom-reader-lanes.test.ts
 * tests the warm-up).
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
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output}`);
    }
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    process: child,
    logs: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** The server logged nothing at error level (pino 50); names the first such line if it did. */
export function assertNoErrorLogged(server: RunningServer): void {
  const line = server
    .logs()
    .split('\n')
    .find((l) => l.includes('"level":50'));
  assert.equal(line, undefined, line);
}
