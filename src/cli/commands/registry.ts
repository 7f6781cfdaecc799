import { Command } from 'commander';
import { listRegistry, verifyRegistry } from '../../registry/registry.service.js';
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
        const org = await ctx.orgs.requireOrg(opts.org);
        const entries = [];
        for await (const e of listRegistry(ctx.database, org.id)) {
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
    .description('recompute the hash chain; exit 1 naming the first broken entry if it was tampered with')
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx: CliContext, opts: { org: string }) => {
        const org = await ctx.orgs.requireOrg(opts.org);
        const result = await verifyRegistry(ctx.database, org.id);
        if (!result.ok) process.exitCode = 1;
        return {
          json: result,
          text: result.ok
            ? `registry of ${opts.org} verified: ${result.entries} entries, chain intact`
            : `registry of ${opts.org} is BROKEN: first broken entry is #${result.first_broken} (${result.entries} entries read)`,
        };
      }),
    );
  return registry;
}
