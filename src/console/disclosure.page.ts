import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { may } from './permissions.js';
import { apiBaseUrl } from './first-steps.js';
import { type FieldErrors, parseForm, serviceErrors } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';

// Disclosure in the console (disclosure.md): the public pages' settings (owners and admins),
// and on a signal that came through them the Conversation panel: the report's extra fields, the
// reporter's identity behind "Show the reporter", the attachments as downloads, the messages, the
// answer form and "Revoke the reporter's link" (analysts and above; viewers read the messages).

const SettingsForm = Type.Object({
  enabled: Type.Optional(Type.Literal('yes')),
  policy: Type.String({ maxLength: 20_000, message: 'At most 20000 characters.' }),
  acknowledge_days: Type.String({ pattern: '^(?:[1-9]|[1-8]\\d|90)$', message: 'A whole number of days from 1 to 90.' }),
  preferred_languages: Type.String({ minLength: 1, maxLength: 200, message: 'Language tags separated by commas, such as "en, de".' }),
  renew: Type.Optional(Type.Literal('yes')),
});
const MessageForm = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 10_000, message: 'Write a message of at most 10000 characters.' }),
  back: Type.Optional(Type.Literal('case')),
});
const NUMBER = /^[1-9]\d{0,9}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function numberOf(request: FastifyRequest): number {
  const raw = (request.params as { number: string }).number;
  if (!NUMBER.test(raw)) throw new AppError('not_found', 'no such signal');
  return Number(raw);
}

/** The Conversation panel's data for a signal's page or its case's page; null when the signal did not come through the disclosure form. */
export async function conversationPanel(deps: ConsoleDeps, request: FastifyRequest, number: number) {
  const slug = orgSlug(request);
  if (!(await deps.disclosure.isDisclosed(slug, number))) return null;
  const conversation = await deps.disclosure.conversation(slug, number);
  const mayRead = may(request.viewer!.org!.role, 'disclosure');
  const names = mayRead ? await deps.disclosure.attachmentNames(slug, number) : new Map<string, string>();
  return {
    ...conversation,
    attachments: conversation.attachments.map((a) => ({ ...a, name: names.get(a.id) ?? null })),
    base: `/console/o/${encodeURIComponent(slug)}/signals/${number}/conversation`,
  };
}

export function registerDisclosurePages(org: FastifyInstance, deps: ConsoleDeps): void {
  async function settingsPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: FieldErrors; notice?: string } = {},
    status = 200,
  ) {
    const slug = orgSlug(request);
    const settings = await deps.disclosure.settings(slug);
    const site = apiBaseUrl(request, deps.config).replace(/\/api\/v1\/external$/, '');
    const pages = `${site}/disclose/${encodeURIComponent(slug)}`;
    return render(
      request,
      reply,
      'disclosure',
      {
        title: 'Disclosure',
        section: 'disclosure',
        settings,
        pages,
        httpsWarning: !site.startsWith('https:'),
        values: {
          policy: settings.policy,
          acknowledge_days: String(settings.acknowledgeDays),
          preferred_languages: settings.preferredLanguages,
          enabled: settings.enabled,
        },
        ...extra,
      },
      status,
    );
  }

  org.get('/disclosure', { config: { permission: 'read' } }, (request, reply) => settingsPage(request, reply));
  org.post('/disclosure', { config: { permission: 'settings' } }, async (request, reply) => {
    const form = parseForm(SettingsForm, request.body);
    if (!form.ok) return settingsPage(request, reply, { errors: form.errors }, 400);
    try {
      await deps.disclosure.configure(
        orgSlug(request),
        {
          enabled: form.value.enabled === 'yes',
          policy: form.value.policy,
          acknowledgeDays: Number(form.value.acknowledge_days),
          preferredLanguages: form.value.preferred_languages,
          renewExpiry: form.value.renew === 'yes',
        },
        actorOf(request.viewer!),
      );
    } catch (error) {
      const field = error instanceof AppError && /language/i.test(error.message) ? 'preferred_languages' : '_form';
      return settingsPage(request, reply, { errors: serviceErrors(error, field) }, 400);
    }
    return settingsPage(request, reply, { notice: 'Disclosure settings saved.' });
  });

  async function conversationPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      identity?: { name: string | null; contact: string | null; credit: string | null };
      errors?: FieldErrors;
      notice?: string;
    } = {},
    status = 200,
  ) {
    const number = numberOf(request);
    const panel = await conversationPanel(deps, request, number);
    if (!panel) throw new AppError('not_found', 'not a disclosure report');
    const signal = (await deps.incidents.listSignals(orgSlug(request))).find((s) => s.incident_number === number)!;
    return render(
      request,
      reply,
      'conversation',
      { title: `Signal ${number}: conversation`, section: 'signals', signal, panel, ...extra },
      status,
    );
  }

  org.get('/signals/:number/conversation', { config: { permission: 'read' } }, (request, reply) => conversationPage(request, reply));

  org.post('/signals/:number/conversation/reporter', { config: { permission: 'disclosure' } }, async (request, reply) => {
    const identity = await deps.disclosure.readIdentity(orgSlug(request), numberOf(request), actorOf(request.viewer!));
    return conversationPage(request, reply, { identity });
  });

  org.post('/signals/:number/conversation/messages', { config: { permission: 'disclosure' } }, async (request, reply) => {
    const number = numberOf(request);
    const form = parseForm(MessageForm, request.body);
    if (!form.ok) return conversationPage(request, reply, { errors: form.errors }, 400);
    try {
      await deps.disclosure.teamMessage(orgSlug(request), number, form.value.message, actorOf(request.viewer!));
    } catch (error) {
      return conversationPage(request, reply, { errors: serviceErrors(error, 'message') }, 400);
    }
    const base = `/console/o/${encodeURIComponent(orgSlug(request))}`;
    return redirect(
      request,
      reply,
      form.value.back === 'case' ? `${base}/cases/${number}#conversation` : `${base}/signals/${number}/conversation#conversation`,
    );
  });

  org.post('/signals/:number/conversation/revoke', { config: { permission: 'disclosure' } }, async (request, reply) => {
    const { revoked } = await deps.disclosure.revokeLink(orgSlug(request), numberOf(request), actorOf(request.viewer!));
    return conversationPage(request, reply, { notice: revoked ? "The reporter's link is revoked." : 'The link was already revoked.' });
  });

  org.get('/signals/:number/attachments/:id', { config: { permission: 'disclosure' } }, async (request, reply) => {
    const id = (request.params as { id: string }).id;
    if (!UUID.test(id)) throw new AppError('not_found', 'no such attachment');
    const file = await deps.disclosure.attachment(orgSlug(request), numberOf(request), id);
    // Never rendered inline: a download of opaque bytes, whatever the reporter sent.
    const ascii = file.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`)
      .header('x-content-type-options', 'nosniff')
      .send(file.bytes);
  });
}
