#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { AppError } from '../errors.js';
import { migrateToLatest, openDatabase } from '../db/index.js';
import { loadConfig } from '../config.js';
import { keyCommand } from './commands/key.js';
import { orgCommand } from './commands/org.js';
import { productCommand } from './commands/product.js';
import { registryCommand } from './commands/registry.js';
import { sbomCommand } from './commands/sbom.js';
import { caseCommand } from './commands/case.js';
import { componentCommand } from './commands/component.js';
import { scoreCommand } from './commands/score.js';
import { signalCommand } from './commands/signal.js';
import { userCommand } from './commands/user.js';
import { webhookCommand } from './commands/webhook.js';

// cra-admin: the administrator's console. Thin commands over the server's own services, on the
// database named by the same environment variables. Exit 0 ok, 1 error, 2 usage error.

function program(): Command {
  const root = new Command('cra-admin')
    .description('Administer the CRA compliance API: organisations, keys, products, cases, SBOMs, registry')
    .option('--json', 'print exactly one JSON document on stdout')
    .showHelpAfterError()
    .enablePositionalOptions(false);
  root
    .command('migrate')
    .description('apply pending database migrations (the server does this at start too)')
    .action(async (_opts: unknown, command: Command) => {
      const config = loadConfig();
      const database = openDatabase(config.databaseUrl, config.databaseTimeouts);
      try {
        const applied = await migrateToLatest(database);
        const json = command.optsWithGlobals<{ json?: boolean }>().json;
        process.stdout.write(
          json ? `${JSON.stringify({ applied })}\n` : applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n',
        );
      } finally {
        await database.close();
      }
    });
  root.addCommand(orgCommand());
  root.addCommand(keyCommand());
  root.addCommand(productCommand());
  root.addCommand(registryCommand());
  root.addCommand(sbomCommand());
  root.addCommand(componentCommand());
  root.addCommand(signalCommand());
  root.addCommand(caseCommand());
  root.addCommand(scoreCommand());
  root.addCommand(userCommand());
  root.addCommand(webhookCommand());
  // Every level accepts --json (also after the subcommand) and answers usage errors with exit 2.
  const configure = (command: Command) => {
    command.exitOverride();
    if (command !== root) command.option('--json', 'print exactly one JSON document on stdout');
    command.commands.forEach(configure);
  };
  configure(root);
  return root;
}

async function main(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version') return 0;
      return 2;
    }
    if (error instanceof AppError || error instanceof ConfigError) {
      process.stderr.write(`cra-admin: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`cra-admin: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

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

main(process.argv).then(exitWhenFlushed);
