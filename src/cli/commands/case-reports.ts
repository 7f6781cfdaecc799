import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ReportView } from '../../cases/case-reports.service.js';
import type { ReportFields } from '../../cases/report-catalogue.js';
import type { StageName } from '../../cases/stage-rules.js';
import { AppError } from '../../errors.js';
import { action, timestampOption } from '../context.js';
import { incidentNumberOption } from './signal.js';

// The Article 14 commands of `cra-admin case` (art14.md "Command line"): reports per stage, the
// CSIRT's requests, the corrective measure, the CSAF advisory and the evidence bundle.

const STAGES: Record<string, StageName> = {
  'early-warning': 'early_warning',
  notification: 'notification',
  intermediate: 'intermediate',
  final: 'final',
};

const stageOption = () =>
  new Option('--stage <stage>', 'the report')
    .choices(Object.keys(STAGES))
    .makeOptionMandatory()
    .argParser((v: string) => {
      if (!(v in STAGES)) throw new InvalidArgumentError(`expected one of ${Object.keys(STAGES).join(', ')}`);
      return STAGES[v]!;
    });

function caseOptions(command: Command): Command {
  return command
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--number <number>', 'incident number of the case', incidentNumberOption);
}

function seqOption(value: string): number {
  return incidentNumberOption(value);
}

/** FIELD=VALUE, repeatable; lists are comma-separated. */
function collectSet(value: string, previous: ReportFields = {}): ReportFields {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected FIELD=VALUE');
  return { ...previous, [value.slice(0, eq).trim()]: value.slice(eq + 1) };
}

function fromFile(path: string): ReportFields {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new AppError(
      'validation_failed',
      `${path}: not a readable JSON file (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new AppError('validation_failed', `${path}: expected a JSON object of field → value`);
  const out: ReportFields = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') out[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out[key] = value as string[];
    else throw new AppError('validation_failed', `${path}: ${key} must be a string or an array of strings`);
  }
  return out;
}

function summary(r: ReportView): string {
  const label = `${r.stage.replace('_', ' ')}${r.stage === 'intermediate' ? ` ${r.seq}` : ''}`;
  const state = `${r.state}${r.due ? `, due ${r.due}` : ''}`;
  if (r.filed)
    return `case ${r.incident_number}: ${label} filed ${r.filed.filed_at} (SRP ${r.filed.srp_reference ?? '-'}, ${state}; sha256 ${r.filed.content_sha256 ?? 'recorded without content'})`;
  return `case ${r.incident_number}: ${label} draft (${state}); ${r.missing.length ? `missing: ${r.missing.join(', ')}` : 'complete: ready to file'}`;
}

export function addReportCommands(kase: Command): void {
  caseOptions(
    kase
      .command('fix-available')
      .description("a corrective or mitigating measure is available: starts a vulnerability's 14-day final-report clock"),
  )
    .requiredOption('--at <timestamp>', 'when it became available (RFC 3339)', timestampOption)
    .option('--description <text>', 'the security update or measure, e.g. "firmware 2.4.3"')
    .action(
      action(async (ctx, opts: { org: string; number: number; at: Date; description?: string }) => {
        const updated = await ctx.reports.recordFix(opts.org, opts.number, opts.at, opts.description);
        const final = updated.stages.find((s) => s.stage === 'final');
        return {
          json: updated,
          text: `case ${updated.incident_number}: corrective measure available ${updated.fix_available_at}; final report due ${final?.due ?? '-'}`,
        };
      }),
    );
  caseOptions(kase.command('intermediate-requested').description('the CSIRT asked for an intermediate report (14(6)); any number of times'))
    .requiredOption('--due <timestamp>', 'the due time the CSIRT gave (RFC 3339)', timestampOption)
    .action(
      action(async (ctx, opts: { org: string; number: number; due: Date }) => {
        const report = await ctx.reports.requestIntermediate(opts.org, opts.number, opts.due);
        return { json: report, text: `case ${report.incident_number}: intermediate report ${report.seq} due ${report.due}` };
      }),
    );
  caseOptions(kase.command('report').description("show or save the draft of a stage's report (pre-filled from what the platform knows)"))
    .addOption(stageOption())
    .option('--seq <n>', 'which intermediate report (default: the first not yet filed)', seqOption)
    .option('--set <field=value>', 'set a field (repeatable; lists comma-separated; an empty value clears)', collectSet)
    .option('--from-file <file>', 'a JSON object of field → value (string or array of strings)')
    .action(
      action(async (ctx, opts: { org: string; number: number; stage: StageName; seq?: number; set?: ReportFields; fromFile?: string }) => {
        const values = { ...(opts.fromFile ? fromFile(opts.fromFile) : {}), ...(opts.set ?? {}) };
        const report = Object.keys(values).length
          ? await ctx.reports.saveDraft(opts.org, opts.number, opts.stage, values, opts.seq)
          : await ctx.reports.getReport(opts.org, opts.number, opts.stage, opts.seq);
        return { json: report, text: summary(report) };
      }),
    );
  caseOptions(kase.command('report-text').description('the report as plain text, in the order of the SRP form'))
    .addOption(stageOption())
    .option('--seq <n>', 'which intermediate report', seqOption)
    .action(
      action(async (ctx, opts: { org: string; number: number; stage: StageName; seq?: number }) => {
        const text = await ctx.reports.reportText(opts.org, opts.number, opts.stage, opts.seq);
        return { json: { text }, text };
      }),
    );
  caseOptions(
    kase.command('file').description('record that the report was filed in the SRP; refuses (exit 1) naming every missing required field'),
  )
    .addOption(stageOption())
    .option('--seq <n>', 'which intermediate report', seqOption)
    .requiredOption('--reference <ref>', "the SRP's reference of the submission")
    .option('--at <timestamp>', 'when it was submitted (RFC 3339; default now)', timestampOption)
    .option('--by <person>', 'who filed it (default: the operating-system user)')
    .action(
      action(
        async (ctx, opts: { org: string; number: number; stage: StageName; seq?: number; reference: string; at?: Date; by?: string }) => {
          const report = await ctx.reports.fileReport(opts.org, opts.number, opts.stage, {
            reference: opts.reference,
            at: opts.at,
            filedBy: opts.by ?? `cli:${userInfo().username}`,
            seq: opts.seq,
          });
          return { json: report, text: summary(report) };
        },
      ),
    );
  caseOptions(kase.command('advisory').description('the CSAF 2.0 security advisory for the affected releases (JSON on stdout); 14(8)'))
    .option('--published-url <url>', 'record that the advisory was published there')
    .option('--published-at <timestamp>', 'when it was published (RFC 3339; default now)', timestampOption)
    .action(
      action(async (ctx, opts: { org: string; number: number; publishedUrl?: string; publishedAt?: Date }) => {
        if (opts.publishedAt && !opts.publishedUrl) throw new AppError('validation_failed', '--published-at needs --published-url');
        const advisory = await ctx.evidence.advisory(
          opts.org,
          opts.number,
          opts.publishedUrl ? { url: opts.publishedUrl, at: opts.publishedAt } : undefined,
        );
        return { json: advisory, text: JSON.stringify(advisory, null, 2) };
      }),
    );
  caseOptions(
    kase.command('export').description('the evidence bundle of the case (JSON on stdout), checkable against registry verify'),
  ).action(
    action(async (ctx, opts: { org: string; number: number }) => {
      const bundle = await ctx.evidence.exportCase(opts.org, opts.number);
      return { json: bundle, text: JSON.stringify(bundle, null, 2) };
    }),
  );
}
