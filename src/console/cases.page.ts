import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { recentRegistry } from '../registry/registry.service.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { clock } from './format.js';
import { type FieldErrors, parseForm, parseUtcInput, serviceErrors, UTC_INPUT } from './forms.js';
import { orgSlug, render, requirePermission } from './render.js';
import { redirect } from './session.js';

// Cases: the list and one case's page. The case page is a list of sections (CASE_SECTIONS),
// each its own template rendered with the same data: the Article 14 workflow adds its stages,
// reports and filings as further sections and routes, without changing these.

export const CASE_SECTIONS = ['case-summary', 'case-deadlines', 'case-notes', 'case-history'];

const SentForm = Type.Object({
  what: Type.Union([Type.Literal('early-warning'), Type.Literal('notification')]),
  at: Type.String({ pattern: UTC_INPUT, message: 'Give the time as YYYY-MM-DDTHH:MM in UTC, or leave it empty for now.' }),
});

function numberOf(request: FastifyRequest): number {
  const raw = (request.params as { number: string }).number;
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw new AppError('not_found', 'no such case');
  return Number(raw);
}

export function registerCasePages(org: FastifyInstance, deps: ConsoleDeps): void {
  org.get('/cases', async (request, reply) => {
    const now = deps.clock();
    const cases = (await deps.cases.listCases(orgSlug(request))).reverse().map((c) => ({
      ...c,
      earlyWarning: c.notifiable && !c.early_warning_sent_at && c.status === 'open' ? clock(c.early_warning_deadline, now) : null,
    }));
    return render(request, reply, 'cases', { title: 'Cases', section: 'cases', cases });
  });

  async function casePage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: FieldErrors; notice?: string } = {},
    status = 200,
  ) {
    const slug = orgSlug(request);
    const number = numberOf(request);
    const [kase, notes, history] = await Promise.all([
      deps.cases.getCase(slug, number),
      deps.cases.caseNotes(slug, number),
      recentRegistry(deps.database, request.viewer!.org!.org_id, { subject: `case ${number}`, limit: 100 }),
    ]);
    const now = deps.clock();
    const deadlines = [
      { key: 'early-warning', label: 'Early warning (24 h)', due: kase.early_warning_deadline, sent: kase.early_warning_sent_at },
      {
        key: 'notification',
        label: 'Vulnerability notification (72 h)',
        due: kase.full_notification_deadline,
        sent: kase.notification_sent_at,
      },
    ].map((d) => ({
      ...d,
      clock: d.sent || kase.status !== 'open' || !kase.notifiable ? null : clock(d.due, now),
      late: d.sent !== null && d.sent > d.due,
    }));
    const caseBase = `/console/o/${encodeURIComponent(slug)}/cases/${number}`;
    return render(
      request,
      reply,
      'case',
      {
        title: `Case ${number}`,
        section: 'cases',
        kase,
        notes,
        history: history.entries,
        deadlines,
        caseBase,
        sections: CASE_SECTIONS,
        ...extra,
      },
      status,
    );
  }

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
}
