import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CaseView } from '../cases/cases.service.js';
import { EARLY_WARNING_HOURS, FULL_NOTIFICATION_HOURS } from '../cases/case-rules.js';
import { type CaseKind, FINAL_REPORT_DAYS_AFTER_FIX, type StageName, stageLabel } from '../cases/stage-rules.js';
import { AppError } from '../errors.js';
import type { ConsoleDeps } from './context.js';
import { conversationPanel } from './disclosure.page.js';
import { clock } from './format.js';
import type { FieldErrors } from './forms.js';
import { orgSlug, render } from './render.js';

// One case's page, shared by the case routes (cases.page.ts) and the Article 14 ones
// (case-art14.page.ts): a list of sections (CASE_SECTIONS), each its own template rendered with
// the same data.

export const CASE_SECTIONS = ['case-summary', 'case-deadlines', 'case-measures', 'case-notes', 'case-history'];

/** early-warning, notification, intermediate-2, final: a stage in a URL. */
export function stageSlug(stage: StageName, seq = 0): string {
  if (stage === 'intermediate') return `intermediate-${seq}`;
  return stage === 'early_warning' ? 'early-warning' : stage;
}

/** "Early warning (24 h)": a stage's name (stageLabel) and its deadline, on the case page and its report form. */
export function stageTitle(stage: StageName, seq: number, kind: CaseKind): string {
  const label = stageLabel(stage, seq);
  const name = `${label[0]!.toUpperCase()}${label.slice(1)}`;
  switch (stage) {
    case 'early_warning':
      return `${name} (${EARLY_WARNING_HOURS} h)`;
    case 'notification':
      return `${kind === 'vulnerability' ? 'Vulnerability' : 'Incident'} ${label} (${FULL_NOTIFICATION_HOURS} h)`;
    case 'intermediate':
      return `${name} (asked by the CSIRT)`;
    default:
      return kind === 'vulnerability'
        ? `${name} (${FINAL_REPORT_DAYS_AFTER_FIX} days after the corrective measure)`
        : `${name} (1 month after the notification)`;
  }
}

export function numberOf(request: FastifyRequest): number {
  const raw = (request.params as { number: string }).number;
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw new AppError('not_found', 'no such case');
  return Number(raw);
}

export type CaseExtra = { errors?: FieldErrors; notice?: string; values?: Record<string, unknown> };

/** The case's Article 14 stages as the deadlines section shows them (stage-rules.ts decides the states). */
export function stageRows(kase: CaseView, now: Date) {
  return kase.stages.map((s) => ({
    ...s,
    slug: stageSlug(s.stage, s.seq),
    label: stageTitle(s.stage, s.seq, kase.kind),
    clock: s.filed_at || s.due === null || kase.status !== 'open' ? null : clock(s.due, now),
  }));
}

/** The case page with every section, optionally with errors or a notice (the forms post back here). */
export async function renderCase(
  deps: ConsoleDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  extra: CaseExtra = {},
  status = 200,
  template = 'case',
) {
  const slug = orgSlug(request);
  const number = numberOf(request);
  const [kase, notes, history, panel] = await Promise.all([
    deps.cases.getCase(slug, number),
    deps.cases.caseNotes(slug, number),
    deps.registry.recent(slug, { subject: `case ${number}`, limit: 100 }),
    // A case opened on a disclosure report carries the reporter's conversation.
    conversationPanel(deps, request, number),
  ]);
  const caseBase = `/console/o/${encodeURIComponent(slug)}/cases/${number}`;
  // A case from an exploited finding whose component a newer release dropped: that release, proposed as the fix.
  const fixProposal =
    kase.notifiable && kase.status === 'open' && !kase.fix_available_at ? await deps.vulns.fixProposal(slug, number) : null;
  return render(
    request,
    reply,
    template,
    {
      title: `Case ${number}`,
      section: 'cases',
      kase,
      notes,
      history: history.entries,
      deadlines: stageRows(kase, deps.clock()),
      caseBase,
      fixProposal,
      sections: panel ? [...CASE_SECTIONS.slice(0, 1), 'case-conversation', ...CASE_SECTIONS.slice(1)] : CASE_SECTIONS,
      panel,
      ...extra,
    },
    status,
  );
}
