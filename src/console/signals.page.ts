import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { apiBaseUrl, EXAMPLE_SKU, firstSteps } from './first-steps.js';
import { type FieldErrors, parseForm, parseUtcInput, serviceErrors, UTC_INPUT } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';

// Signals: inbound reports with their product match, CVE and description, and the triage
// actions of art14.md: open a case (the case service), dismiss with a reason, merge into a case,
// attribute to a product (the triage service, the same one as `cra-admin signal …`).

const OpenCaseForm = Type.Object({
  number: Type.String({ pattern: '^[1-9]\\d{0,9}$' }),
  notifiable: Type.Optional(Type.Literal('yes')),
  aware_at: Type.String({
    pattern: UTC_INPUT,
    message: 'Give the awareness time as YYYY-MM-DDTHH:MM in UTC, or leave it empty for now.',
  }),
  product_sku: Type.String({ maxLength: 100 }),
  kind: Type.Optional(
    Type.Union([Type.Literal('vulnerability'), Type.Literal('incident')], {
      message: 'Choose vulnerability (actively exploited) or incident (severe incident).',
    }),
  ),
  reason: Type.Optional(Type.String({ maxLength: 1000, message: 'At most 1000 characters.' })),
});

const NUMBER = Type.String({ pattern: '^[1-9]\\d{0,9}$' });
const DismissForm = Type.Object({
  number: NUMBER,
  dismiss_reason: Type.String({ minLength: 1, maxLength: 1000, message: 'Say why this signal is dismissed (1 to 1000 characters).' }),
});
const MergeForm = Type.Object({
  number: NUMBER,
  into: Type.String({ pattern: '^[1-9]\\d{0,9}$', message: 'Give the number of the case this signal duplicates.' }),
});
const AttributeForm = Type.Object({
  number: NUMBER,
  attribute_sku: Type.String({ minLength: 1, maxLength: 100, message: 'Give the SKU of the product this signal is about.' }),
});

export function registerSignalPages(org: FastifyInstance, deps: ConsoleDeps): void {
  async function page(request: FastifyRequest, reply: FastifyReply, extra: { errors?: FieldErrors; errorFor?: number } = {}, status = 200) {
    const all = (request.query as { all?: string }).all === '1';
    const signals = await deps.incidents.listSignals(orgSlug(request));
    const shown = (all ? signals : signals.filter((s) => s.status === 'INCOMING')).reverse();
    // With no signal at all, the page shows how one is reported (about the first product, if there is one).
    const steps =
      signals.length === 0
        ? firstSteps(
            apiBaseUrl(request, deps.config),
            orgSlug(request),
            (await deps.products.listProducts(orgSlug(request)))[0]?.sku ?? EXAMPLE_SKU,
          )
        : null;
    return render(
      request,
      reply,
      'signals',
      { title: 'Signals', section: 'signals', signals: shown, total: signals.length, all, steps, ...extra },
      status,
    );
  }

  org.get('/signals', { config: { permission: 'read' } }, (request, reply) => page(request, reply));

  org.post('/signals/open-case', { config: { permission: 'cases' } }, async (request, reply) => {
    const form = parseForm(OpenCaseForm, request.body);
    const number = Number((request.body as { number?: unknown } | undefined)?.number) || 0;
    if (!form.ok) return page(request, reply, { errors: form.errors, errorFor: number }, 400);
    const awareAt = parseUtcInput(form.value.aware_at);
    if (awareAt === null) return page(request, reply, { errors: { aware_at: 'That time does not exist.' }, errorFor: number }, 400);
    try {
      const opened = await deps.cases.openCase(orgSlug(request), {
        signalNumber: number,
        notifiable: form.value.notifiable === 'yes',
        kind: form.value.kind,
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

  const signalsUrl = (request: FastifyRequest, number: number) =>
    `/console/o/${encodeURIComponent(orgSlug(request))}/signals#signal-${number}`;

  /** One triage action: form → triage service → back to the list, or the list with the error beside the field. */
  function triageRoute<T extends TObject>(
    path: string,
    schema: T,
    field: keyof Static<T> & string,
    act: (slug: string, number: number, value: Static<T>, actor: string) => Promise<unknown>,
  ) {
    org.post(path, { config: { permission: 'cases' } }, async (request, reply) => {
      const number = Number((request.body as { number?: unknown } | undefined)?.number) || 0;
      const form = parseForm(schema, request.body);
      if (!form.ok) return page(request, reply, { errors: form.errors, errorFor: number }, 400);
      try {
        await act(orgSlug(request), number, form.value, actorOf(request.viewer!));
      } catch (error) {
        // The signal itself not being this organisation's (or not existing) is a 404, like any object.
        if (error instanceof AppError && error.code === 'not_found' && /no signal/.test(error.message)) throw error;
        // A signal triaged meanwhile is no longer listed: its message goes above the list.
        const conflict = error instanceof AppError && error.code === 'conflict';
        const errors =
          error instanceof AppError && error.code === 'not_found'
            ? { [field]: error.message }
            : serviceErrors(error, conflict ? '_form' : field);
        return page(request, reply, { errors, errorFor: number }, conflict ? 409 : 400);
      }
      return redirect(request, reply, signalsUrl(request, number));
    });
  }

  triageRoute('/signals/dismiss', DismissForm, 'dismiss_reason', (slug, n, v, actor) =>
    deps.triage.dismissSignal(slug, n, v.dismiss_reason, actor),
  );
  triageRoute('/signals/merge', MergeForm, 'into', (slug, n, v, actor) => deps.triage.mergeSignal(slug, n, Number(v.into), actor));
  triageRoute('/signals/attribute', AttributeForm, 'attribute_sku', (slug, n, v, actor) =>
    deps.triage.attributeSignal(slug, n, v.attribute_sku, actor),
  );
}
