import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/cli/run.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  /** stdout's bytes as written (`sbom download`). */
  bytes: Buffer;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json<T = any>(): T;
}

function result(code: number, out: Buffer, stderr: string): CliResult {
  const stdout = out.toString('utf8');
  return {
    code,
    stdout,
    bytes: out,
    stderr,
    json() {
      return JSON.parse(stdout);
    },
  };
}

/**
 * Runs `cra-admin` in this process: the program the executable runs (src/cli/run.ts), with
 * only `env` as its environment (as a subprocess would have), its output captured. Exit codes
 * and output are the executable's; `runCliProcess` runs the built one where the process
 * itself is what is tested.
 */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const stdout: Buffer[] = [];
  let stderr = '';
  const code = await run(args, {
    env: { LOG_LEVEL: 'silent', ...env },
    stdout: { write: (text: string | Uint8Array) => stdout.push(typeof text === 'string' ? Buffer.from(text) : Buffer.from(text)) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return result(code, Buffer.concat(stdout), stderr);
}

/**
 * Runs the built `cra-admin` (dist/, as `npx cra-admin` does) as a subprocess on the given
 * database. `npm test` builds before running the suite.
 */
export function runCliProcess(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve(result(code ?? -1, Buffer.concat(stdout), stderr)));
    child.stdin.end(stdin ?? '');
  });
}
