import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import type { DisclosureSettings } from '../../disclosure/disclosure.service.js';
import { AppError } from '../../errors.js';
import { action } from '../context.js';

// cra-admin disclosure: the public disclosure pages of an organisation (disclosure.md), as the
// console's Disclosure page sets them.

function days(value: string): number {
  if (!/^\d{1,2}$/.test(value) || Number(value) < 1 || Number(value) > 90)
    throw new InvalidArgumentError('expected a whole number of days from 1 to 90');
  return Number(value);
}

function describe(slug: string, s: DisclosureSettings): string {
  return [
    `disclosure of ${slug}: ${s.enabled ? 'enabled' : 'disabled'}`,
    `acknowledge within ${s.acknowledgeDays} days; languages ${s.preferredLanguages}; security.txt expires ${s.expiresAt}`,
  ].join('\n');
}

const json = (s: DisclosureSettings) => ({
  enabled: s.enabled,
  acknowledge_days: s.acknowledgeDays,
  preferred_languages: s.preferredLanguages,
  expires_at: s.expiresAt,
  policy_chars: s.policy.length,
});

export function disclosureCommand(): Command {
  const disclosure = new Command('disclosure').description(
    "an organisation's public vulnerability disclosure pages (policy, report form, security.txt)",
  );
  disclosure
    .command('enable')
    .description('open the pages under /disclose/<org>')
    .requiredOption('--org <slug>', 'organisation')
    .option('--acknowledge-days <n>', 'how fast the team acknowledges reports (shown on the policy page)', days)
    .action(
      action(async (ctx, opts: { org: string; acknowledgeDays?: number }) => {
        const s = await ctx.disclosure.configure(opts.org, { enabled: true, acknowledgeDays: opts.acknowledgeDays });
        return { json: json(s), text: describe(opts.org, s) };
      }),
    );
  disclosure
    .command('disable')
    .description('close the pages: they answer 404, as for an unknown organisation')
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx, opts: { org: string }) => {
        const s = await ctx.disclosure.configure(opts.org, { enabled: false });
        return { json: json(s), text: describe(opts.org, s) };
      }),
    );
  disclosure
    .command('policy')
    .description('set the policy text (Markdown) from a file')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--file <path>', 'a Markdown file')
    .action(
      action(async (ctx, opts: { org: string; file: string }) => {
        const text = await readFile(opts.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
          throw new AppError('bad_request', `cannot read ${opts.file}: ${error.code ?? error.message}`);
        });
        const s = await ctx.disclosure.configure(opts.org, { policy: text });
        return { json: json(s), text: `${describe(opts.org, s)}\npolicy: ${s.policy.length} characters` };
      }),
    );
  return disclosure;
}
