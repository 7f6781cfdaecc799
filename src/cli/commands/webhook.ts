import { Command, InvalidArgumentError } from 'commander';
import { EVENT_TYPES } from '../../webhooks/event-types.js';
import type { IssuedSecret } from '../../webhooks/webhooks.service.js';
import { action, durationOption } from '../context.js';
import { table } from '../output.js';

const ENDPOINT_COLUMNS = ['id', 'url', 'events', 'status', 'failing_since', 'disabled_reason', 'previous_secret_expires_at', 'created_at'];
const DELIVERY_COLUMNS = ['id', 'type', 'status', 'attempts', 'last_status', 'last_error', 'next_attempt_at', 'created_at', 'event_id'];
const DAY_MS = 86_400_000;

function limitOption(value: string): number {
  if (!/^[1-9]\d{0,3}$/.test(value)) throw new InvalidArgumentError('expected a number from 1 to 9999');
  return Number(value);
}

function issued(endpoint: IssuedSecret, verb: string) {
  const grace = endpoint.previous_secret_expires_at
    ? ` The previous secret keeps signing beside it until ${endpoint.previous_secret_expires_at}.`
    : '';
  return {
    json: endpoint,
    text: [
      `${verb} webhook endpoint ${endpoint.id} → ${endpoint.url} (events: ${endpoint.events.join(',')}).${grace}`,
      'Signing secret (shown once; store it in the receiver now, it cannot be shown again):',
      endpoint.secret,
    ].join('\n'),
  };
}

export function webhookCommand(): Command {
  const webhook = new Command('webhook').description('signed webhooks: endpoints that receive the platform events, and their delivery log');
  webhook
    .command('add')
    .description('add an endpoint; its signing secret is printed once')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--url <url>', 'https URL of the receiver (non-public addresses only with WEBHOOK_ALLOW_PRIVATE=true)')
    .option('--events <list>', `comma-separated event types (default: all): ${EVENT_TYPES.join(', ')}`)
    .action(
      action(async (ctx, opts: { org: string; url: string; events?: string }) => issued(await ctx.webhooks.addEndpoint(opts), 'Added')),
    );
  webhook
    .command('list')
    .description("list an organisation's endpoints (never a secret)")
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx, opts: { org: string }) => {
        const endpoints = await ctx.webhooks.listEndpoints(opts.org);
        return { json: endpoints, text: table(endpoints as unknown as Array<Record<string, unknown>>, ENDPOINT_COLUMNS) };
      }),
    );
  webhook
    .command('rotate-secret')
    .description('issue a new signing secret; during the grace both signatures are sent')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--endpoint <id>', 'endpoint id (from webhook list)')
    .option('--grace <duration>', 'keep signing with the old secret too for this long (e.g. 0s, 2h, 1d)', durationOption, DAY_MS)
    .action(
      action(async (ctx, opts: { org: string; endpoint: string; grace: number }) =>
        issued(await ctx.webhooks.rotateSecret({ org: opts.org, id: opts.endpoint, graceMs: opts.grace }), 'Rotated the secret of'),
      ),
    );
  webhook
    .command('disable')
    .description('stop delivering to an endpoint; its pending deliveries end as failed')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--endpoint <id>', 'endpoint id')
    .action(
      action(async (ctx, opts: { org: string; endpoint: string }) => {
        const disabled = await ctx.webhooks.disableEndpoint({ org: opts.org, id: opts.endpoint });
        return { json: disabled, text: `disabled webhook endpoint ${disabled.id} (${disabled.url}) at ${disabled.disabled_at}` };
      }),
    );
  webhook
    .command('enable')
    .description('deliver to a disabled endpoint again (its URL is checked anew); failed deliveries stay failed until replayed')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--endpoint <id>', 'endpoint id')
    .action(
      action(async (ctx, opts: { org: string; endpoint: string }) => {
        const enabled = await ctx.webhooks.enableEndpoint({ org: opts.org, id: opts.endpoint });
        return { json: enabled, text: `enabled webhook endpoint ${enabled.id} (${enabled.url})` };
      }),
    );
  webhook
    .command('delete')
    .description('delete an endpoint and its delivery log')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--endpoint <id>', 'endpoint id')
    .action(
      action(async (ctx, opts: { org: string; endpoint: string }) => {
        await ctx.webhooks.deleteEndpoint({ org: opts.org, id: opts.endpoint });
        return { json: { id: opts.endpoint, deleted: true }, text: `deleted webhook endpoint ${opts.endpoint} and its delivery log` };
      }),
    );
  webhook
    .command('deliveries')
    .description('the delivery log, newest first; --json includes every attempt (status, duration, error)')
    .requiredOption('--org <slug>', 'organisation')
    .option('--endpoint <id>', 'only this endpoint')
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--limit <n>', 'at most this many deliveries (default 50)', limitOption)
    .action(
      action(async (ctx, opts: { org: string; endpoint?: string; status?: string; limit?: number }) => {
        const deliveries = await ctx.webhooks.listDeliveries(opts);
        return { json: deliveries, text: table(deliveries as unknown as Array<Record<string, unknown>>, DELIVERY_COLUMNS) };
      }),
    );
  webhook
    .command('replay')
    .description('send a delivery again (same webhook-id and body), with a fresh 24 h of retries')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--delivery <id>', 'delivery id (from webhook deliveries)')
    .action(
      action(async (ctx, opts: { org: string; delivery: string }) => {
        const replayed = await ctx.webhooks.replay(opts);
        return { json: replayed, text: `delivery ${replayed.id} (event ${replayed.event_id}) queued again` };
      }),
    );
  return webhook;
}
