import { Command, InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../config.js';
import type { Services } from '../services.js';
import { parseDuration, parseTimestamp } from '../shared/time.js';
// start-up.ts (the database drivers, every service) is loaded by the commands that use it, so
// that `sbom check`, which needs none of it, starts in a fraction of the time.
const startUp = () => import('../start-up.js');

/** What one run of cra-admin reads and writes: the process's own, or a test's. */
export interface CliIo {
  env: Record<string, string | undefined>;
  /** Text, or a document's raw bytes (`sbom download`). */
  stdout: { write(text: string | Uint8Array): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}

/** Everything a command needs: the same config, database and services as the server. */
export interface CliContext extends Services {
  config: Readonly<Config>;
  /** The run's streams, and whether it answers with --json (a command's progress goes to a terminal's stderr, never with --json). */
  io: CliIo;
  json: boolean;
}

interface RunState {
  io: CliIo;
  exitCode: number;
}

const runs = new WeakMap<Command, RunState>();

/** Ties a run's io to its program, where every command's action finds it. */
export function bindIo(root: Command, io: CliIo): RunState {
  const state = { io, exitCode: 0 };
  runs.set(root, state);
  return state;
}

function stateOf(command: Command): RunState {
  let root = command;
  while (root.parent) root = root.parent;
  const state = runs.get(root);
  if (!state) throw new Error('cra-admin command run outside run()');
  return state;
}

/** What a command answers: JSON for --json, text otherwise, and exit 1 when it reports a failure (verify). */
export interface CommandResult {
  json: unknown;
  text: string;
  failed?: boolean;
  /** The exit code when it is not 0 or 1 (sbom check: 2 for a document it cannot read). */
  exitCode?: number;
  /** Bytes written to stdout as they are, instead of `text` and no newline added (`sbom download`); --json prints `json`. */
  raw?: Uint8Array;
}

/** Runs one command with a context (migrated database, services), printing JSON (with --json) or readable text. */
export function action<A extends unknown[]>(run: (ctx: CliContext, ...args: A) => Promise<CommandResult>) {
  return async (...args: A): Promise<void> => {
    const command = args[args.length - 1] as Command;
    const state = stateOf(command);
    const { openRuntime } = await startUp();
    const runtime = await openRuntime(loadConfig(state.io.env), { migrate: true, pauseForCollections: true });
    try {
      const asJson = command.optsWithGlobals<{ json?: boolean }>().json === true;
      const { json, text, failed, raw } = await run({ config: runtime.config, ...runtime.services, io: state.io, json: asJson }, ...args);
      if (raw && !asJson) state.io.stdout.write(raw);
      else state.io.stdout.write(asJson ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);
      if (failed) state.exitCode = 1;
    } finally {
      await runtime.close();
    }
  };
}

/**
 * Runs a command that needs no database and no services (sbom check, a pipeline's step before
 * it pushes): its output as `action` prints it, the run's environment never read for a database.
 */
export function offlineAction<A extends unknown[]>(run: (io: CliIo, ...args: A) => Promise<CommandResult>) {
  return async (...args: A): Promise<void> => {
    const command = args[args.length - 1] as Command;
    const state = stateOf(command);
    const asJson = command.optsWithGlobals<{ json?: boolean }>().json === true;
    const { json, text, failed, exitCode } = await run(state.io, ...args);
    if (asJson || text !== '') state.io.stdout.write(asJson ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);
    if (exitCode !== undefined) state.exitCode = exitCode;
    else if (failed) state.exitCode = 1;
  };
}

/** `migrate`: the database alone, no services (nothing else needs to start to migrate it). */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations (the server does this at start too)')
    .action(async (_opts: unknown, command: Command) => {
      const { io } = stateOf(command);
      const { migrateDatabase } = await startUp();
      const applied = await migrateDatabase(loadConfig(io.env));
      const json = command.optsWithGlobals<{ json?: boolean }>().json;
      io.stdout.write(
        json ? `${JSON.stringify({ applied })}\n` : applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n',
      );
    });
}

export function timestampOption(value: string): Date {
  const date = parseTimestamp(value);
  if (!date) throw new InvalidArgumentError('expected an RFC 3339 timestamp, e.g. 2027-01-31T00:00:00Z');
  return date;
}

export function durationOption(value: string): number {
  const ms = parseDuration(value);
  if (ms === null) throw new InvalidArgumentError('expected a duration such as 10m, 2h or 1d');
  return ms;
}

/** The largest revision the column holds (a 32-bit integer on both databases). */
const MAX_REVISION = 2_147_483_647;

/** A revision number: digits only, as written (Number() would also take 1e0, 0x1 and 99999999999999999999, rounded). */
export function revisionNumber(value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > MAX_REVISION) {
    throw new InvalidArgumentError(`expected a revision number (1, 2, … up to ${MAX_REVISION})`);
  }
  return Number(value);
}
