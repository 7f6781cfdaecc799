import { Command, InvalidArgumentError } from 'commander';
import type { SignalWithProduct } from '../../incidents/signals.repo.js';
import { action } from '../context.js';
import { table } from '../output.js';

/** Parses an incident number option: a positive integer, else a usage error (exit 2). */
export function incidentNumberOption(value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new InvalidArgumentError('expected an incident number (a positive integer)');
  return Number(value);
}

// Reporter identity and contact stay out even here: no command sets or needs them yet.
function view(s: SignalWithProduct) {
  return {
    id: s.id,
    incident_number: s.incident_number,
    status: s.status,
    received_at: s.received_at,
    source: s.source,
    title: s.title,
    description: s.description,
    cve: s.cve,
    sku: s.sku,
    gtin: s.gtin,
    product_sku: s.product_sku,
  };
}

export function signalCommand(): Command {
  const signal = new Command('signal').description('inbound security signals (reports received by POST /incidents)');
  signal
    .command('list')
    .description("list an organisation's signals, oldest first")
    .requiredOption('--org <slug>', 'organisation')
    .option('--unattributed', 'only signals that matched no product')
    .action(
      action(async (ctx, opts: { org: string; unattributed?: boolean }) => {
        const org = await ctx.orgs.requireOrg(opts.org);
        const rows = (await ctx.incidents.listSignals(org.id, { unattributed: opts.unattributed === true })).map(view);
        const lines = rows.map((r) => ({ ...r, summary: (r.title ?? r.description.split('\n')[0] ?? '').slice(0, 60) }));
        return { json: rows, text: table(lines, ['incident_number', 'status', 'received_at', 'source', 'product_sku', 'cve', 'summary']) };
      }),
    );
  return signal;
}
