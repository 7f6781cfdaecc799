import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { recentRegistry } from '../registry/registry.service.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { clock, laterStageClocks } from './format.js';
import { pageOf } from './paging.js';
import { type FieldErrors, parseForm, parseUtcInput, serviceErrors, UTC_INPUT } from './forms.js';
import { orgSlug, render, requirePermission } from './render.js';
import { redirect } from './session.js';
import type { CaseView } from '../cases/cases.service.js';
import { registerCaseArticle14, stageSlug, stageTitle } from './case-art14.page.js';

// Cases: the list and one case's page. The case page is a list of sections (CASE_SECTIONS),
// each its own template rendered with the same data: the Article 14 workflow (case-art14.page.ts)
// adds its stages, measures, reports and filings as sections and routes of their own.

export const CASE_SECTIONS = ['case-summary', 'case-deadlines', 'case-measures', 'case-notes', 'case-history'];

const SentForm = Type.Object({
  what: Type.Union([Type.Literal('early-warning'), Type.Literal('notification')]),
  at: Type.String({ pattern: UTC_INPUT, message: 'Give the time as YYYY-MM-DDTHH:MM in UTC, or leave it empty for now.' }),
});

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
  const [kase, notes, history] = await Promise.all([
    deps.cases.getCase(slug, number),
    deps.cases.caseNotes(slug, number),
    recentRegistry(deps.database, request.viewer!.org!.org_id, { subject: `case ${number}`, limit: 100 }),
  ]);
  const caseBase = `/console/o/${encodeURIComponent(slug)}/cases/${number}`;
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
      sections: CASE_SECTIONS,
      ...extra,
    },
    status,
  );
}

export function registerCasePages(org: FastifyInstance, deps: ConsoleDeps): void {
  org.get('/cases', async (request, reply) => {
    const now = deps.clock();
    const { rows, ...paging } = pageOf(request, (await deps.cases.listCases(orgSlug(request))).reverse());
    const cases = rows.map((c) => ({
      ...c,
      earlyWarning: c.notifiable && !c.early_warning_sent_at && c.status === 'open' ? clock(c.early_warning_deadline, now) : null,
      later: c.status === 'open' ? laterStageClocks(c.stages, now) : { clocks: [], waitingForFix: false },
    }));
    return render(request, reply, 'cases', { title: 'Cases', section: 'cases', cases, ...paging });
  });

  const casePage = (request: FastifyRequest, reply: FastifyReply, extra: CaseExtra = {}, status = 200) =>
    renderCase(deps, request, reply, extra, status);

  org.get('/cases/:number', (request, reply) => casePage(request, reply));

  org.post('/cases/:number/sent', async (request, reply) => {
    requirePermission(request, 'cases');
    const number = numberOf(request);
    const form = parseForm(SentForm, request.body);
    if (!form.ok)
      return casePage(request, reply, { errors: { [`at-${String(form.values.what)}`]: form.errors.at ?? 'Choose what was sent.' } }, 400);
    const at = parseUtcInput(form.value.at);
    if (at === null) return casePage(request, reply, { errors: { [`at-${form.value.what}`]: 'That time does not exist.' } }, 400);
    try {
      const record = form.value.what === 'early-warning' ? deps.cases.recordEarlyWarning : deps.cases.recordNotification;
      await record(orgSlug(request), number, at ?? undefined, actorOf(request.viewer!));
    } catch (error) {
      return casePage(request, reply, { errors: serviceErrors(error, `at-${form.value.what}`) }, 400);
    }
    return redirect(request, reply, `/console/o/${encodeURIComponent(orgSlug(request))}/cases/${number}`);
  });

  org.post('/cases/:number/close', async (request, reply) => {
    requirePermission(request, 'cases');
    const number = numberOf(request);
    try {
      await deps.cases.closeCase(orgSlug(request), number, actorOf(request.viewer!));
    } catch (error) {
      return casePage(request, reply, { errors: serviceErrors(error) }, 409);
    }
    return redirect(request, reply, `/console/o/${encodeURIComponent(orgSlug(request))}/cases/${number}`);
  });

  registerCaseArticle14(org, deps);
}
