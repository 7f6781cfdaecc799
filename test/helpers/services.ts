import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Private PostgreSQL and Redis servers for tests that stop or restart them; the shared ones on
// this machine are left alone.

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export interface PrivateRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Sends `signal` to the server (SIGSTOP freezes it, SIGCONT thaws it). */
  signal(signal: NodeJS.Signals): void;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor(
      () =>
        spawnSync('redis-cli', ['-p', String(port), 'ping'])
          .stdout?.toString()
          .includes('PONG') ?? false,
      'redis',
    );
  };
  const stop = async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, signal: (signal) => child?.kill(signal) };
}

export interface PrivatePostgres {
  url: string;
  /** The same server, another database on it. */
  urlOf(database: string): string;
  /** pg_ctl stop: `immediate` (default) aborts like a crash, `fast` disconnects clients and shuts down cleanly. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Sends `signal` to the postmaster and every process it started (SIGSTOP freezes the server, SIGCONT thaws it). */
  signalAll(signal: NodeJS.Signals): void;
  /** kill -9 of every client backend: the postmaster ends all sessions and recovers, as after a crash. */
  killBackends(): number;
  /** Runs SQL with psql as the superuser on `database`. */
  psql(sql: string, database?: string): string;
  destroy(): Promise<void>;
}

function pgBin(name: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort();
  return join('/usr/lib/postgresql', versions[versions.length - 1]!, 'bin', name);
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** initdb into a temp folder and run it on a spare port (as the postgres user when root). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cra-pg-'));
  const asPostgres = process.getuid?.() === 0;
  const run = (args: string[]) => {
    const cmd = asPostgres ? 'runuser' : args[0]!;
    const argv = asPostgres ? ['-u', 'postgres', '--', ...args] : args.slice(1);
    const result = spawnSync(cmd, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  };
  if (asPostgres) spawnSync('chown', ['postgres', dir]);
  run([pgBin('initdb'), '-D', `${dir}/data`, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const start = async () =>
    run([
      pgBin('pg_ctl'),
      '-D',
      `${dir}/data`,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-w',
      '-l',
      `${dir}/log`,
      'start',
    ]);
  const stop = async (mode: 'fast' | 'immediate' = 'immediate') => run([pgBin('pg_ctl'), '-D', `${dir}/data`, '-m', mode, '-w', 'stop']);
  const postmaster = () => Number(readFileSync(`${dir}/data/postmaster.pid`, 'utf8').split('\n')[0]);
  const children = (pid: number) =>
    spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .map(Number);
  // Client backends are the children whose command line names a database connection ("postgres: postgres postgres 127.0.0.1(…)").
  const backends = (pid: number) => children(pid).filter((child) => /\d+\.\d+\.\d+\.\d+\(\d+\)/.test(readCmdline(child)));
  await start();
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url: url('postgres'),
    urlOf: url,
    start,
    stop,
    signalAll(signal) {
      const pid = postmaster();
      // The postmaster first, so it cannot start a new backend after the children were frozen.
      for (const target of [pid, ...children(pid)]) {
        try {
          process.kill(target, signal);
        } catch {
          // exited meanwhile
        }
      }
    },
    killBackends() {
      const targets = backends(postmaster());
      for (const target of targets) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // exited meanwhile
        }
      }
      return targets.length;
    },
    psql(sql, database = 'postgres') {
      const result = spawnSync(
        'psql',
        ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql],
        { encoding: 'utf8' },
      );
      if (result.status !== 0) throw new Error(`psql failed: ${result.stderr}`);
      return result.stdout.trim();
    },
    async destroy() {
      await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
