import { Command, InvalidArgumentError } from 'commander';
import { AppError } from '../../errors.js';
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
  // Reports from the disclosure form (disclosure.md): the positional number is the signal's.
  const numberArgument = (command: Command) => command.argument('<number>', "the signal's incident number", incidentNumberOption);
  numberArgument(
    signal
      .command('show')
      .description('one signal; with --reporter, also the sealed name, contact and credit line of a disclosure report (a registry entry)')
      .requiredOption('--org <slug>', 'organisation')
      .option('--reporter', "open the reporter's identity (recorded as disclosure.identity_read)"),
  ).action(
    action(async (ctx, number: number, opts: { org: string; reporter?: boolean }) => {
      const s = (await ctx.incidents.listSignals(opts.org)).find((row) => row.incident_number === number);
      if (!s) throw new AppError('not_found', `no signal ${number} in ${opts.org}`);
      const reporter = opts.reporter ? await ctx.disclosure.readIdentity(opts.org, number, 'cli') : undefined;
      const lines = [
        `signal ${s.incident_number} (${s.status}) from ${s.source}, received ${s.received_at}`,
        `product: ${s.product_sku ?? 'unattributed'}; cve: ${s.cve ?? '-'}`,
        s.title ?? s.description.split('\n')[0] ?? '',
      ];
      if (reporter)
        lines.push(
          `reporter: ${reporter.name ?? 'anonymous'}`,
          `contact: ${reporter.contact ?? 'none given'}`,
          `credit: ${reporter.credit ?? 'none given'}`,
        );
      return { json: reporter ? { ...s, reporter } : s, text: lines.join('\n') };
    }),
  );
  numberArgument(
    signal
      .command('message')
      .description('answer the reporter of a disclosure report (they read it through their follow-up link)')
      .requiredOption('--org <slug>', 'organisation')
      .requiredOption('--text <text>', 'the message'),
  ).action(
    action(async (ctx, number: number, opts: { org: string; text: string }) => {
      await ctx.disclosure.teamMessage(opts.org, number, opts.text, 'cli');
      return { json: { incident_number: number, sent: true }, text: `message sent to the reporter of signal ${number}` };
    }),
  );
  numberArgument(
    signal
      .command('revoke-link')
      .description("end the reporter's follow-up link of a disclosure report")
      .requiredOption('--org <slug>', 'organisation'),
  ).action(
    action(async (ctx, number: number, opts: { org: string }) => {
      const { revoked } = await ctx.disclosure.revokeLink(opts.org, number, 'cli');
      return {
        json: { incident_number: number, revoked },
        text: revoked
          ? `the reporter's link of signal ${number} is revoked`
          : `the reporter's link of signal ${number} was already revoked`,
      };
    }),
  );
  return signal;
}
