import { Command } from 'commander';
import { action, timestampOption } from '../context.js';
import { table } from '../output.js';
import { incidentNumberOption } from './signal.js';

const COLUMNS = ['incident_number', 'status', 'notifiable', 'product_sku', 'aware_at', 'early_warning_deadline', 'early_warning_sent_at', 'full_notification_deadline', 'notification_sent_at', 'title'];

/** `case early-warning` and `case notify`: the same command for each of the two CRA Art. 14 sends. */
const SENDS = [
  { command: 'early-warning', what: 'early warning', record: 'recordEarlyWarning', sentAt: 'early_warning_sent_at', deadline: 'early_warning_deadline' },
  { command: 'notify', what: 'notification', record: 'recordNotification', sentAt: 'notification_sent_at', deadline: 'full_notification_deadline' },
] as const;

export function caseCommand(): Command {
  const kase = new Command('case').description('cases: signals an administrator decided to treat as incidents (CRA Art. 14 clocks)');
  kase
    .command('open')
    .description('open a case on a signal (same incident number); deadlines are awareness + 24 h and + 72 h')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--signal <number>', "the signal's incident number", incidentNumberOption)
    .option('--notifiable', 'an actively exploited vulnerability or severe incident: the 24 h / 72 h clocks run')
    .option('--aware-at <timestamp>', 'when the manufacturer became aware (RFC 3339; default now)', timestampOption)
    .option('--product <sku>', "the affected product (default: the signal's matched product)")
    .option('--title <title>', 'case title (default: the signal title, or the first line of its description, ≤ 120 characters)')
    .option('--note <text>', 'confidential note, stored but never shown by the API')
    .action(
      action(async (ctx, opts: { org: string; signal: number; notifiable?: boolean; awareAt?: Date; product?: string; title?: string; note?: string }) => {
        const opened = await ctx.cases.openCase(opts.org, {
          signalNumber: opts.signal,
          notifiable: opts.notifiable === true,
          awareAt: opts.awareAt,
          productSku: opts.product,
          title: opts.title,
          note: opts.note,
        });
        const clocks = opened.notifiable ? `early warning due ${opened.early_warning_deadline}, notification due ${opened.full_notification_deadline}` : 'not notifiable';
        return { json: opened, text: `opened case ${opened.incident_number} "${opened.title}": ${clocks}` };
      }),
    );
  kase
    .command('list')
    .description("list an organisation's cases with deadlines and what was sent when")
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx, opts: { org: string }) => {
        const cases = await ctx.cases.listCases(opts.org);
        return { json: cases, text: table(cases as unknown as Array<Record<string, unknown>>, COLUMNS) };
      }),
    );
  for (const send of SENDS) {
    kase
      .command(send.command)
      .description(`record that the ${send.what} was sent`)
      .requiredOption('--org <slug>', 'organisation')
      .requiredOption('--number <number>', 'incident number of the case', incidentNumberOption)
      .option('--at <timestamp>', 'when it was sent (RFC 3339; default now)', timestampOption)
      .action(
        action(async (ctx, opts: { org: string; number: number; at?: Date }) => {
          const updated = await ctx.cases[send.record](opts.org, opts.number, opts.at);
          const sentAt = updated[send.sentAt]!;
          const due = updated[send.deadline];
          const timing = sentAt <= due ? 'on time' : 'LATE';
          return { json: updated, text: `case ${updated.incident_number}: ${send.what} sent ${sentAt} (${timing}, due ${due})` };
        }),
      );
  }
  kase
    .command('close')
    .description('close a case (its clocks stop counting)')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--number <number>', 'incident number of the case', incidentNumberOption)
    .action(
      action(async (ctx, opts: { org: string; number: number }) => {
        const closed = await ctx.cases.closeCase(opts.org, opts.number);
        return { json: closed, text: `closed case ${closed.incident_number}` };
      }),
    );
  return kase;
}
