import { Command } from 'commander';
import { parseScopes, type IssuedKey } from '../../keys/keys.service.js';
import { SCOPES } from '../../keys/scopes.js';
import { action, durationOption, timestampOption } from '../context.js';
import { table } from '../output.js';

function issued(key: IssuedKey, verb: string) {
  // The secret stays the last line, alone, so that scripts can take it with `tail -n 1`.
  const previous =
    key.previous_prefix === undefined
      ? []
      : [
          key.previous_secret_until
            ? `The previous secret (${key.previous_prefix}…) keeps working until ${key.previous_secret_until}, then stops.`
            : `The previous secret (${key.previous_prefix}…) stopped working now.`,
        ];
  return {
    json: key,
    text: [
      `${verb} key "${key.name}" (${key.prefix}…) with scopes ${key.scopes.join(',')}${key.expires_at ? `, expiring ${key.expires_at}` : ''}.`,
      ...previous,
      'Secret (shown once; store it now, it cannot be recovered):',
      key.secret,
    ].join('\n'),
  };
}

export function keyCommand(): Command {
  const key = new Command('key').description('API keys');
  key
    .command('create')
    .description('create a key; its secret is printed once')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--name <name>', 'key name, unique among the live keys of the organisation')
    .requiredOption('--scopes <list>', `comma-separated: ${SCOPES.join(', ')}`)
    .option('--expires-at <timestamp>', 'RFC 3339 expiry', timestampOption)
    .action(
      action(async (ctx, opts: { org: string; name: string; scopes: string; expiresAt?: Date }) =>
        issued(
          await ctx.keys.createKey({ org: opts.org, name: opts.name, scopes: parseScopes(opts.scopes), expiresAt: opts.expiresAt ?? null }),
          'Created',
        ),
      ),
    );
  key
    .command('list')
    .description("list an organisation's keys (never a secret or digest)")
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx, opts: { org: string }) => {
        const keys = await ctx.keys.listKeys(opts.org);
        return {
          json: keys,
          text: table(keys as unknown as Array<Record<string, unknown>>, [
            'name',
            'prefix',
            'scopes',
            'created_at',
            'expires_at',
            'revoked_at',
            'last_used_at',
            'previous_secret_until',
          ]),
        };
      }),
    );
  key
    .command('rotate')
    .description('issue a new secret for a key; the old one dies now or after the grace period')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--name <name>', 'key name')
    .option('--grace <duration>', 'keep the old secret working this long (e.g. 10m, 2h, 1d)', durationOption)
    .action(
      action(async (ctx, opts: { org: string; name: string; grace?: number }) =>
        issued(await ctx.keys.rotateKey({ org: opts.org, name: opts.name, graceMs: opts.grace }), 'Rotated'),
      ),
    );
  key
    .command('revoke')
    .description('revoke a key at once')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--name <name>', 'key name')
    .action(
      action(async (ctx, opts: { org: string; name: string }) => {
        const revoked = await ctx.keys.revokeKey(opts);
        return { json: revoked, text: `revoked key "${revoked.name}" (${revoked.prefix}…) at ${revoked.revoked_at}` };
      }),
    );
  return key;
}
