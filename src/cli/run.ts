import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { AppError } from '../errors.js';
import { bindIo, type CliIo, migrateCommand } from './context.js';
import { caseCommand } from './commands/case.js';
import { componentCommand } from './commands/component.js';
import { disclosureCommand } from './commands/disclosure.js';
import { keyCommand } from './commands/key.js';
import { orgCommand } from './commands/org.js';
import { productCommand } from './commands/product.js';
import { registryCommand } from './commands/registry.js';
import { sbomCommand } from './commands/sbom.js';
import { scoreCommand } from './commands/score.js';
import { setupLinkCommand } from './commands/setup-link.js';
import { signalCommand } from './commands/signal.js';
import { userCommand } from './commands/user.js';
import { webhookCommand } from './commands/webhook.js';
import { findingCommand } from './commands/finding.js';
import { vexCommand } from './commands/vex.js';
import { vulnCommand } from './commands/vuln.js';

export type { CliIo };

// cra-admin: the administrator's console. Thin commands over the server's own services, on the
// database named by the same environment variables. Exit 0 ok, 1 error, 2 usage error.
// `run` is the whole program with its environment and output handed in: main.ts gives it the
// process's, the tests their own (in process, many runs a second).

function program(io: CliIo): Command {
  const root = new Command('cra-admin')
    .description('Administer the CRA compliance API: organisations, keys, products, cases, SBOMs, registry')
    .option('--json', 'print exactly one JSON document on stdout')
    .showHelpAfterError()
    .enablePositionalOptions(false);
  root.addCommand(migrateCommand());
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
  root.addCommand(setupLinkCommand());
  root.addCommand(webhookCommand());
  root.addCommand(vulnCommand());
  root.addCommand(findingCommand());
  root.addCommand(vexCommand());
  root.addCommand(disclosureCommand());
  // Every level accepts --json (also after the subcommand), writes to `io` and answers usage
  // errors with exit 2.
  const output = { writeOut: (text: string) => void io.stdout.write(text), writeErr: (text: string) => void io.stderr.write(text) };
  const configure = (command: Command) => {
    command.exitOverride().configureOutput(output);
    if (command !== root) command.option('--json', 'print exactly one JSON document on stdout');
    command.commands.forEach(configure);
  };
  configure(root);
  return root;
}

/** Runs cra-admin with `argv` (the arguments after the program's name); resolves to the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const root = program(io);
  const state = bindIo(root, io);
  try {
    await root.parseAsync([...argv], { from: 'user' });
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version') return 0;
      return 2;
    }
    const message = error instanceof AppError || error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    io.stderr.write(`cra-admin: ${message}\n`);
    return 1;
  }
}
