import { Command, Option } from 'commander';
import { AppError } from '../../errors.js';
import { action } from '../context.js';
import { table } from '../output.js';
import { SBOM_POLICY_WORDS } from '../../sbom/conformance/policy.js';

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
    .description("change an organisation's settings and the data its Article 14 reports carry")
    .addOption(intakeMode())
    .option('--legal-name <name>', 'legal name of the manufacturer')
    .option('--address <text>', 'postal address of the main establishment')
    .option('--contact-email <email>', 'security contact e-mail')
    .option('--member-state <code>', 'Member State of main establishment (ISO 3166-1 alpha-2, one of the 27)')
    .option(
      '--sbom-policy <policy>',
      `report (accept every valid SBOM, report its conformance) or require:PROFILE (refuse one that does not conform): ${SBOM_POLICY_WORDS.join(', ')}`,
    )
    .action(
      action(
        async (
          ctx,
          slug: string,
          opts: {
            intakeMode?: 'signal' | 'case';
            legalName?: string;
            address?: string;
            contactEmail?: string;
            memberState?: string;
            sbomPolicy?: string;
          },
        ) => {
          const details = {
            legalName: opts.legalName,
            postalAddress: opts.address,
            contactEmail: opts.contactEmail,
            memberState: opts.memberState,
          };
          const hasDetails = Object.values(details).some((v) => v !== undefined);
          if (!opts.intakeMode && !hasDetails && opts.sbomPolicy === undefined)
            throw new AppError(
              'validation_failed',
              'nothing to change: give --intake-mode, --sbom-policy or organisation data (--legal-name, --address, --contact-email, --member-state)',
            );
          const policy = opts.sbomPolicy === undefined ? undefined : await ctx.sbomConformance.setPolicy(slug, opts.sbomPolicy, 'cli');
          if (opts.intakeMode) await ctx.orgs.setIntakeMode(slug, opts.intakeMode);
          const updated = hasDetails ? await ctx.orgs.setDetails(slug, details) : await ctx.orgs.describeOrg(slug);
          const data = [
            `intake mode ${updated.intake_mode}`,
            updated.legal_name && `legal name ${updated.legal_name}`,
            updated.member_state && `Member State ${updated.member_state}`,
            policy && `SBOM policy ${policy.policy}`,
          ].filter(Boolean);
          return { json: policy ? { ...updated, sbom_policy: policy.policy } : updated, text: `organisation ${slug}: ${data.join(', ')}` };
        },
      ),
    );
  return org;
}
