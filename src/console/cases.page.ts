import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actorOf, type ConsoleDeps } from './context.js';
import { stageClocks } from './format.js';
import { pageOf } from './paging.js';
import { parseForm, parseUtcInput, serviceErrors, UTC_INPUT } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';
import { registerCaseArticle14 } from './case-art14.page.js';
import { type CaseExtra, numberOf, renderCase } from './case-page.js';

// Cases: the list and one case's page. The case page (case-page.ts) is a list of sections,
// each its own template rendered with the same data: the Article 14 workflow (case-art14.page.ts)
// adds its stages, measures, reports and filings as sections and routes of their own.

const SentForm = Type.Object({
  what: Type.Union([Type.Literal('early-warning'), Type.Literal('notification')]),
  at: Type.String({ pattern: UTC_INPUT, message: 'Give the time as YYYY-MM-DDTHH:MM in UTC, or leave it empty for now.' }),
});

export function registerCasePages(org: FastifyInstance, deps: ConsoleDeps): void {
  org.get('/cases', { config: { permission: 'read' } }, async (request, reply) => {
    const now = deps.clock();
    const { rows, ...paging } = pageOf(request, (await deps.cases.listCases(orgSlug(request))).reverse());
    const cases = rows.map((c) => {
      const clocks = c.status === 'open' ? stageClocks(c.stages, now) : null;
      return { ...c, earlyWarning: clocks?.earlyWarning ?? null, later: clocks?.later ?? { clocks: [], waitingForFix: false } };
    });
    return render(request, reply, 'cases', { title: 'Cases', section: 'cases', cases, ...paging });
  });

  const casePage = (request: FastifyRequest, reply: FastifyReply, extra: CaseExtra = {}, status = 200) =>
    renderCase(deps, request, reply, extra, status);

  org.get('/cases/:number', { config: { permission: 'read' } }, (request, reply) => casePage(request, reply));

  org.post('/cases/:number/sent', { config: { permission: 'cases' } }, async (request, reply) => {
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

  org.post('/cases/:number/close', { config: { permission: 'cases' } }, async (request, reply) => {
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
