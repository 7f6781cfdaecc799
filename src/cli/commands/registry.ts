import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { AppError } from '../../errors.js';
import { action, type CliContext } from '../context.js';
import { table } from '../output.js';

export function registryCommand(): Command {
  const registry = new Command('registry').description('the activity registry (hash-chained, append-only)');
  registry
    .command('list')
    .description("list an organisation's registry entries")
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx: CliContext, opts: { org: string }) => {
        const entries = [];
        for await (const e of ctx.registry.entries(opts.org)) {
          entries.push({
            seq: e.seq,
            at: e.at,
            actor: e.actor,
            action: e.action,
            subject: e.subject,
            details: JSON.parse(e.details) as unknown,
            prev_hash: e.prev_hash,
            hash: e.hash,
          });
        }
        return { json: entries, text: table(entries, ['seq', 'at', 'actor', 'action', 'subject', 'details']) };
      }),
    );
  registry
    .command('verify')
    .description(
      'recompute the hash chain; exit 1 naming the first broken entry if it was tampered with. With --checkpoint, also prove that the chain still extends that signed head (a rewritten or truncated chain fails)',
    )
    .requiredOption('--org <slug>', 'organisation')
    .option('--checkpoint <file>', 'a checkpoint written by `registry checkpoint` (needs REGISTRY_SIGNING_KEY)')
    .action(
      action(async (ctx: CliContext, opts: { org: string; checkpoint?: string }) => {
        if (opts.checkpoint !== undefined) {
          const checkpoint = readCheckpoint(opts.checkpoint);
          const result = await ctx.registry.verifyCheckpoint(opts.org, checkpoint, ctx.config.registrySigningKey);
          return {
            failed: !result.ok,
            json: result,
            text: result.ok
              ? `registry of ${opts.org} verified: ${result.entries} entries, chain intact and extending the checkpoint at entry #${result.checkpoint_sequence}`
              : `registry of ${opts.org} does NOT extend the checkpoint at entry #${result.checkpoint_sequence}: ${result.reason}`,
          };
        }
        const result = await ctx.registry.verify(opts.org);
        return {
          failed: !result.ok,
          json: result,
          text: result.ok
            ? `registry of ${opts.org} verified: ${result.entries} entries, chain intact`
            : `registry of ${opts.org} is BROKEN: first broken entry is #${result.first_broken} (${result.entries} entries read)`,
        };
      }),
    );
  registry
    .command('checkpoint')
    .description(
      "print the registry's head (sequence, hash, time) signed with REGISTRY_SIGNING_KEY (Ed25519), to keep outside the database",
    )
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx: CliContext, opts: { org: string }) => {
        const checkpoint = await ctx.registry.checkpoint(opts.org, ctx.config.registrySigningKey);
        // The checkpoint is a document to keep (`> checkpoint.json`): JSON with or without --json.
        return { json: checkpoint, text: JSON.stringify(checkpoint, null, 2) };
      }),
    );
  return registry;
}

function readCheckpoint(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new AppError(
      'validation_failed',
      `cannot read the checkpoint file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
}
