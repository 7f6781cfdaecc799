import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { type FieldErrors, parseForm, parseUtcInput, serviceErrors, UTC_INPUT } from './forms.js';
import { orgSlug, render, requirePermission } from './render.js';
import { redirect } from './session.js';

// Signals: inbound reports with their product match, CVE and description, and the triage
// action "open a case" (the existing case service). Further triage actions (dismiss, merge,
// attribute: art14.md) are added as forms in views/signal-actions.eta and routes here.

const OpenCaseForm = Type.Object({
  number: Type.String({ pattern: '^[1-9]\\d{0,9}$' }),
  notifiable: Type.Optional(Type.Literal('yes')),
  aware_at: Type.String({
    pattern: UTC_INPUT,
    message: 'Give the awareness time as YYYY-MM-DDTHH:MM in UTC, or leave it empty for now.',
  }),
  product_sku: Type.String({ maxLength: 100 }),
  reason: Type.Optional(Type.String({ maxLength: 1000, message: 'At most 1000 characters.' })),
});

export function registerSignalPages(org: FastifyInstance, deps: ConsoleDeps): void {
  async function page(request: FastifyRequest, reply: FastifyReply, extra: { errors?: FieldErrors; errorFor?: number } = {}, status = 200) {
    const all = (request.query as { all?: string }).all === '1';
    const signals = await deps.incidents.listSignals(orgSlug(request));
    const shown = (all ? signals : signals.filter((s) => s.status === 'INCOMING')).reverse();
    return render(request, reply, 'signals', { title: 'Signals', section: 'signals', signals: shown, all, ...extra }, status);
  }

  org.get('/signals', (request, reply) => page(request, reply));

  org.post('/signals/open-case', async (request, reply) => {
    requirePermission(request, 'cases');
    const form = parseForm(OpenCaseForm, request.body);
    const number = Number((request.body as { number?: unknown } | undefined)?.number) || 0;
    if (!form.ok) return page(request, reply, { errors: form.errors, errorFor: number }, 400);
    const awareAt = parseUtcInput(form.value.aware_at);
    if (awareAt === null) return page(request, reply, { errors: { aware_at: 'That time does not exist.' }, errorFor: number }, 400);
    try {
      const opened = await deps.cases.openCase(orgSlug(request), {
        signalNumber: number,
        notifiable: form.value.notifiable === 'yes',
        notifiableReason: form.value.notifiable === 'yes' ? undefined : form.value.reason || undefined,
        awareAt: awareAt ?? undefined,
        productSku: form.value.product_sku || undefined,
        actor: actorOf(request.viewer!),
      });
      return redirect(request, reply, `/console/o/${encodeURIComponent(orgSlug(request))}/cases/${opened.incident_number}`);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') throw error;
      if (error instanceof AppError && /needs the reason/.test(error.message)) {
        return page(
          request,
          reply,
          { errors: { reason: 'Say why this case is not notifiable, or tick “Notifiable”.' }, errorFor: number },
          400,
        );
      }
      const field =
        error instanceof AppError && error.code === 'product_not_found'
          ? 'product_sku'
          : error instanceof AppError && /awareness/.test(error.message)
            ? 'aware_at'
            : '_form';
      return page(request, reply, { errors: serviceErrors(error, field), errorFor: number }, 400);
    }
  });
}
