import { Command, InvalidArgumentError } from 'commander';
import { toSignalView } from '../../incidents/incidents.service.js';
import { action } from '../context.js';
import { table } from '../output.js';

/** Parses an incident number option: a positive integer, else a usage error (exit 2). */
export function incidentNumberOption(value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new InvalidArgumentError('expected an incident number (a positive integer)');
  return Number(value);
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
        const rows = await ctx.incidents.listSignals(opts.org, { unattributed: opts.unattributed === true });
        const lines = rows.map((r) => ({ ...r, summary: (r.title ?? r.description.split('\n')[0] ?? '').slice(0, 60) }));
        return { json: rows, text: table(lines, ['incident_number', 'status', 'received_at', 'source', 'product_sku', 'cve', 'summary']) };
      }),
    );
  const triage = (name: string, description: string) =>
    signal
      .command(name)
      .description(description)
      .requiredOption('--org <slug>', 'organisation')
      .requiredOption('--signal <number>', "the signal's incident number", incidentNumberOption);
  triage('dismiss', 'triage: no case (not a security issue, not ours, spam …); the reason is kept')
    .requiredOption('--reason <text>', 'why it is dismissed')
    .action(
      action(async (ctx, opts: { org: string; signal: number; reason: string }) => {
        const s = await ctx.triage.dismissSignal(opts.org, opts.signal, opts.reason);
        return { json: toSignalView(s), text: `signal ${s.incident_number} dismissed: ${s.triage_reason}` };
      }),
    );
  triage('merge', 'triage: a duplicate report of an existing case (no second clock)')
    .requiredOption('--into <case>', 'incident number of the case', incidentNumberOption)
    .action(
      action(async (ctx, opts: { org: string; signal: number; into: number }) => {
        const s = await ctx.triage.mergeSignal(opts.org, opts.signal, opts.into);
        return { json: toSignalView(s), text: `signal ${s.incident_number} merged into case ${s.merged_into}` };
      }),
    );
  triage('attribute', 'name the product of a signal that is still INCOMING (it leaves the unattributed list)')
    .requiredOption('--sku <sku>', 'the product')
    .action(
      action(async (ctx, opts: { org: string; signal: number; sku: string }) => {
        const s = await ctx.triage.attributeSignal(opts.org, opts.signal, opts.sku);
        return { json: toSignalView(s), text: `signal ${s.incident_number} attributed to ${s.product_sku}` };
      }),
    );
  return signal;
}
