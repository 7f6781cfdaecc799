import { Command, Option } from 'commander';
import type { CaseView } from '../../cases/cases.service.js';
import { stageLabel, type CaseKind } from '../../cases/stage-rules.js';
import { AppError } from '../../errors.js';
import { addReportCommands } from './case-reports.js';
import { action, timestampOption } from '../context.js';
import { table } from '../output.js';
import { incidentNumberOption } from './signal.js';

const COLUMNS = ['incident_number', 'status', 'kind', 'notifiable', 'product_sku', 'aware_at', 'stages', 'title'];

/** "early_warning met · notification overdue (due …) · final waiting" for the table. */
function stagesText(c: CaseView): string {
  if (!c.notifiable) return `not notifiable${c.notifiable_reason ? `: ${c.notifiable_reason}` : ''}`;
  return c.stages.map((s) => `${stageLabel(s.stage, s.seq)} ${s.state}${s.filed_at ? '' : s.due ? ` (due ${s.due})` : ''}`).join(' · ');
}

/** `case early-warning` and `case notify`: the same command for each of the two CRA Art. 14 sends. */
const SENDS = [
  {
    command: 'early-warning',
    what: 'early warning',
    record: 'recordEarlyWarning',
    sentAt: 'early_warning_sent_at',
    deadline: 'early_warning_deadline',
  },
  {
    command: 'notify',
    what: 'notification',
    record: 'recordNotification',
    sentAt: 'notification_sent_at',
    deadline: 'full_notification_deadline',
  },
] as const;

export function caseCommand(): Command {
  const kase = new Command('case').description('cases: signals an administrator decided to treat as incidents (CRA Art. 14 clocks)');
  kase
    .command('open')
    .description('open a case on a signal (same incident number); deadlines are awareness + 24 h and + 72 h')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--signal <number>', "the signal's incident number", incidentNumberOption)
    .option('--notifiable', 'an actively exploited vulnerability or severe incident: the Article 14 clocks run')
    .option('--not-notifiable', 'decided not notifiable (needs --reason)')
    .option('--reason <text>', 'why the case is not notifiable')
    .addOption(
      new Option('--kind <kind>', 'actively exploited vulnerability (14(1)) or severe incident (14(3))')
        .choices(['vulnerability', 'incident'])
        .default('vulnerability'),
    )
    .option('--aware-at <timestamp>', 'when the manufacturer became aware (RFC 3339; default now)', timestampOption)
    .option('--product <sku>', "the affected product (default: the signal's matched product)")
    .option('--title <title>', 'case title (default: the signal title, or the first line of its description, ≤ 120 characters)')
    .option('--note <text>', 'confidential note, stored but never shown by the API')
    .action(
      action(
        async (
          ctx,
          opts: {
            org: string;
            signal: number;
            notifiable?: boolean;
            notNotifiable?: boolean;
            reason?: string;
            kind: CaseKind;
            awareAt?: Date;
            product?: string;
            title?: string;
            note?: string;
          },
        ) => {
          if (opts.notifiable && opts.notNotifiable)
            throw new AppError('validation_failed', 'give --notifiable or --not-notifiable, not both');
          if (opts.notNotifiable && !opts.reason?.trim()) throw new AppError('validation_failed', '--not-notifiable needs --reason');
          if (opts.reason !== undefined && !opts.notNotifiable)
            throw new AppError('validation_failed', '--reason goes with --not-notifiable');
          const opened = await ctx.cases.openCase(opts.org, {
            signalNumber: opts.signal,
            notifiable: opts.notifiable === true ? true : opts.notNotifiable ? false : undefined,
            notifiableReason: opts.reason,
            kind: opts.kind,
            awareAt: opts.awareAt,
            productSku: opts.product,
            title: opts.title,
            note: opts.note,
          });
          return { json: opened, text: `opened case ${opened.incident_number} (${opened.kind}) "${opened.title}": ${stagesText(opened)}` };
        },
      ),
    );
  kase
    .command('list')
    .description("list an organisation's cases with deadlines and what was sent when")
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx, opts: { org: string }) => {
        const cases = await ctx.cases.listCases(opts.org);
        return {
          json: cases,
          text: table(
            cases.map((c) => ({ ...c, stages: stagesText(c) })),
            COLUMNS,
          ),
        };
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
  addReportCommands(kase);
  return kase;
}
