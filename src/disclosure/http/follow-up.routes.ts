import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addressGroup } from '../../http/rate-limit/address-group.js';
import type { RateLimitStore } from '../../http/rate-limit/store.js';
import type { DisclosureService } from '../disclosure.service.js';
import { DISCLOSE_PREFIX, type PublicPages } from './pages.js';

// The reporter's follow-up page: the report's state and the conversation, and the form that
// answers the team (URL-encoded, its token checked before the handler, 30 an hour per address).

/** Messages through follow-up links, per client address (an IPv6 one by its /64) per hour: a conversation, not a flood. */
export const MESSAGE_LIMIT = 30;
const MESSAGE_WINDOW_MS = 3_600_000;
const MessageForm = Type.Object({ message: Type.String({ minLength: 1, maxLength: 10_000 }) });

export async function registerFollowUp(
  scope: FastifyInstance,
  deps: { disclosure: DisclosureService; rateLimitStore: RateLimitStore; pages: PublicPages },
): Promise<void> {
  const { disclosure, rateLimitStore } = deps;
  const { page, notFound, tooMany, slugOf } = deps.pages;
  // The follow-up page and its message form (URL-encoded, token checked by the preHandler).
  await scope.register(async (follow) => {
    await follow.register(formbody, { bodyLimit: 64 * 1024 });
    follow.addHook('preHandler', (request, reply, done) => {
      if (request.method !== 'POST') return done();
      return scope.csrfProtection(request, reply, done);
    });
    const show = async (request: FastifyRequest, reply: FastifyReply, notice: string | null, error: string | null, status = 200) => {
      const { token } = request.params as { token: string };
      const view = await disclosure.followUp(slugOf(request), token);
      if (!view) return notFound(reply);
      return page(
        reply,
        'follow',
        {
          title: `Your report · ${view.org.name}`,
          org: view.org,
          report: view,
          action: `${DISCLOSE_PREFIX}/${encodeURIComponent(view.org.slug)}/follow/${token}`,
          csrf: reply.generateCsrf({ userInfo: `disclose:${view.org.slug}` }),
          notice,
          error,
        },
        status,
      );
    };
    follow.get('/:slug/follow/:token', { config: { permission: 'public' } }, (request, reply) => show(request, reply, null, null));
    follow.post('/:slug/follow/:token', { config: { permission: 'public' } }, async (request, reply) => {
      const { token } = request.params as { token: string };
      const body = request.body as { message?: unknown } | undefined;
      const message = typeof body?.message === 'string' ? body.message : '';
      if (!Value.Check(MessageForm, { message }) || !message.trim())
        return show(request, reply, null, 'Write a message of at most 10000 characters.', 400);
      const decision = await rateLimitStore.consume(`disclose:message:${addressGroup(request.ip)}`, MESSAGE_LIMIT, MESSAGE_WINDOW_MS);
      if (!decision.allowed) return tooMany(reply, 'messages', decision.retryAfterSeconds);
      const sent = await disclosure.reporterMessage(slugOf(request), token, message);
      if (!sent) return notFound(reply);
      return show(request, reply, 'Your message was sent to the team.', null);
    });
  });
}
