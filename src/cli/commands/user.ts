import { Command } from 'commander';
import { publicBaseUrl } from '../../config.js';
import { action } from '../context.js';
import { table } from '../output.js';

// Console users, for operators. No password ever passes through here: an invitation is a
// one-time link, and the person behind it chooses their own password in the browser.

export function userCommand(): Command {
  const user = new Command('user').description('console users (see the README: The console)');
  user
    .command('invite')
    .description('print a one-time console sign-up link (valid 72 h)')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--email <email>', "the invitee's e-mail address")
    .requiredOption('--role <role>', 'owner, admin, analyst or viewer')
    .action(
      action(async (ctx, opts: { org: string; email: string; role: string }) => {
        const invitation = await ctx.users.invite({ org: opts.org, email: opts.email, role: opts.role, actor: 'cli' });
        const url = `${publicBaseUrl(ctx.config)}/console/invite/${invitation.token}`;
        return {
          json: { email: invitation.email, role: invitation.role, org: invitation.org, url, expires_at: invitation.expires_at },
          text: [
            `Invitation for ${invitation.email} (${invitation.role} of ${invitation.org}), single use, valid until ${invitation.expires_at}:`,
            url,
          ].join('\n'),
        };
      }),
    );
  user
    .command('list')
    .description('list console users and their memberships')
    .option('--org <slug>', 'only members of this organisation')
    .action(
      action(async (ctx, opts: { org?: string }) => {
        const users = await ctx.users.listUsers(opts.org);
        const rows = users.map((u) => ({ ...u, memberships: u.memberships.map((m) => `${m.org}:${m.role}`).join(',') }));
        return { json: users, text: table(rows, ['email', 'status', 'totp_enrolled', 'memberships', 'created_at']) };
      }),
    );
  user
    .command('disable')
    .description('disable a user: no sign-in, every session ends')
    .requiredOption('--email <email>', 'the user')
    .action(
      action(async (ctx, opts: { email: string }) => {
        await ctx.users.disableUser(opts.email);
        return {
          json: { email: opts.email.trim().toLowerCase(), status: 'disabled' },
          text: `${opts.email} is disabled; their sessions have ended.`,
        };
      }),
    );
  user
    .command('reset-2fa')
    .description("remove a user's authenticator and recovery codes; they enrol anew at the next sign-in")
    .requiredOption('--email <email>', 'the user')
    .action(
      action(async (ctx, opts: { email: string }) => {
        await ctx.users.resetTwoFactor(opts.email);
        return {
          json: { email: opts.email.trim().toLowerCase(), totp_enrolled: false },
          text: `${opts.email}'s authenticator is removed and their sessions have ended; they enrol a new one after signing in with their password.`,
        };
      }),
    );
  return user;
}
