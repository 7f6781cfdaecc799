import { Command, Option } from 'commander';
import { action } from '../context.js';
import { table } from '../output.js';

const intakeMode = () => new Option('--intake-mode <mode>', 'what POST /incidents creates').choices(['signal', 'case']);

export function orgCommand(): Command {
  const org = new Command('org').description('organisations (tenants)');
  org
    .command('create <slug>')
    .description('create an organisation')
    .option('--name <name>', 'display name (default: the slug)')
    .addOption(intakeMode().default('signal'))
    .action(
      action(async (ctx, slug: string, opts: { name?: string; intakeMode: 'signal' | 'case' }) => {
        const created = await ctx.orgs.createOrg({ slug, name: opts.name, intakeMode: opts.intakeMode });
        return { json: created, text: `created organisation ${created.slug} (${created.id}), intake mode ${created.intake_mode}` };
      }),
    );
  org
    .command('list')
    .description('list organisations')
    .action(
      action(async (ctx) => {
        const orgs = await ctx.orgs.listOrgs();
        return { json: orgs, text: table(orgs as unknown as Array<Record<string, unknown>>, ['slug', 'name', 'intake_mode', 'id']) };
      }),
    );
  org
    .command('set <slug>')
    .description("change an organisation's settings")
    .addOption(intakeMode().makeOptionMandatory())
    .action(
      action(async (ctx, slug: string, opts: { intakeMode: 'signal' | 'case' }) => {
        const updated = await ctx.orgs.setIntakeMode(slug, opts.intakeMode);
        return { json: updated, text: `organisation ${slug}: intake mode ${updated.intake_mode}` };
      }),
    );
  return org;
}
