import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseDuration } from '../shared/time.js';
import { EVENT_TYPES } from '../webhooks/event-types.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { parseForm, serviceErrors, type FieldErrors } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';

// Webhook endpoints (webhooks.md): list with state, add (secret shown once), rotate the secret
// with a grace period, disable, enable, delete, and each endpoint's delivery log with replay.
// Every member reads; owners and admins change. The same webhook service as `cra-admin webhook`.

const AddForm = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000, message: 'Give the https URL of your receiver.' }),
  events: Type.Array(Type.Union(EVENT_TYPES.map((e) => Type.Literal(e))), { message: 'Choose among the listed events.' }),
});
const RotateForm = Type.Object({
  grace: Type.String({
    pattern: '^(\\d+[smhd])?$',
    message: 'Give the grace period as a number and a unit, e.g. 10m, 2h or 1d, or leave it empty.',
  }),
});
const ReplayForm = Type.Object({ delivery: Type.String({ minLength: 1, maxLength: 100 }) });

const NOTICES: Record<string, string> = {
  disabled: 'The endpoint is disabled: nothing more is delivered to it, and its pending deliveries ended as failed.',
  enabled: 'The endpoint is enabled: new events are delivered to it again. Replay the failed deliveries you still need.',
  deleted: 'The endpoint and its delivery log are deleted.',
  replayed: 'The delivery is queued again, with the same webhook-id; the log shows its next attempt.',
};

export function registerWebhookPages(org: FastifyInstance, deps: ConsoleDeps): void {
  const base = (request: FastifyRequest) => `/console/o/${encodeURIComponent(orgSlug(request))}/webhooks`;
  const noticeOf = (request: FastifyRequest) => NOTICES[(request.query as { done?: string }).done ?? ''];

  async function listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: FieldErrors; values?: Record<string, unknown> } = {},
    status = 200,
  ) {
    const endpoints = await deps.webhooks.listEndpoints(orgSlug(request));
    return render(
      request,
      reply,
      'webhooks',
      { title: 'Webhooks', section: 'webhooks', endpoints, eventTypes: EVENT_TYPES, notice: noticeOf(request), ...extra },
      status,
    );
  }

  async function endpointPage(request: FastifyRequest, reply: FastifyReply, id: string, errors: FieldErrors = {}, status = 200) {
    const slug = orgSlug(request);
    const endpoint = await deps.webhooks.getEndpoint(slug, id);
    const deliveries = await deps.webhooks.listDeliveries({ org: slug, endpoint: endpoint.id, limit: 50 });
    return render(
      request,
      reply,
      'webhook',
      {
        title: `Webhook ${endpoint.url}`,
        section: 'webhooks',
        endpoint,
        // Both signatures are sent only until then (the dispatcher's rule).
        graceActive: endpoint.previous_secret_expires_at !== null && endpoint.previous_secret_expires_at > deps.clock().toISOString(),
        deliveries,
        notice: noticeOf(request),
        errors,
      },
      status,
    );
  }

  org.get('/webhooks', { config: { permission: 'read' } }, async (request, reply) => listPage(request, reply));

  org.post('/webhooks', { config: { permission: 'webhooks' } }, async (request, reply) => {
    const form = parseForm(AddForm, request.body);
    if (!form.ok) return listPage(request, reply, { errors: form.errors, values: form.values }, 400);
    try {
      const endpoint = await deps.webhooks.addEndpoint({
        org: orgSlug(request),
        url: form.value.url,
        // None ticked: every event, as `cra-admin webhook add` without --events.
        events: form.value.events.join(','),
        actor: actorOf(request.viewer!),
      });
      reply.header('cache-control', 'no-store');
      return render(request, reply, 'webhook-secret', { title: 'Endpoint added', section: 'webhooks', endpoint, verb: 'added' });
    } catch (error) {
      return listPage(request, reply, { errors: serviceErrors(error, 'url'), values: form.value }, 400);
    }
  });

  org.get('/webhooks/:id', { config: { permission: 'read' } }, async (request, reply) =>
    endpointPage(request, reply, (request.params as { id: string }).id),
  );

  org.post('/webhooks/:id/rotate', { config: { permission: 'webhooks' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = parseForm(RotateForm, request.body);
    if (!form.ok) return endpointPage(request, reply, id, { grace: form.errors.grace! }, 400);
    const graceMs = form.value.grace ? parseDuration(form.value.grace)! : 0;
    const endpoint = await deps.webhooks.rotateSecret({ org: orgSlug(request), id, graceMs, actor: actorOf(request.viewer!) });
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'webhook-secret', { title: 'Secret rotated', section: 'webhooks', endpoint, verb: 'rotated' });
  });

  for (const change of ['disable', 'enable'] as const) {
    org.post(`/webhooks/:id/${change}`, { config: { permission: 'webhooks' } }, async (request, reply) => {
      const { id } = request.params as { id: string };
      const input = { org: orgSlug(request), id, actor: actorOf(request.viewer!) };
      try {
        const endpoint = await (change === 'disable' ? deps.webhooks.disableEndpoint(input) : deps.webhooks.enableEndpoint(input));
        return redirect(request, reply, `${base(request)}/${endpoint.id}?done=${change}d`);
      } catch (error) {
        return endpointPage(request, reply, id, serviceErrors(error), 400);
      }
    });
  }

  org.post('/webhooks/:id/delete', { config: { permission: 'webhooks' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    await deps.webhooks.deleteEndpoint({ org: orgSlug(request), id, actor: actorOf(request.viewer!) });
    return redirect(request, reply, `${base(request)}?done=deleted`);
  });

  org.post('/webhooks/:id/replay', { config: { permission: 'webhooks' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const form = parseForm(ReplayForm, request.body);
    if (!form.ok) return endpointPage(request, reply, id, { _form: 'Choose a delivery to replay.' }, 400);
    // Only a delivery of this endpoint of this organisation: anything else is not found (404 page).
    const endpoint = await deps.webhooks.getEndpoint(orgSlug(request), id);
    try {
      await deps.webhooks.replay({
        org: orgSlug(request),
        delivery: form.value.delivery,
        endpoint: endpoint.id,
        actor: actorOf(request.viewer!),
      });
    } catch (error) {
      return endpointPage(request, reply, id, serviceErrors(error), 400);
    }
    return redirect(request, reply, `${base(request)}/${endpoint.id}?done=replayed`);
  });
}
