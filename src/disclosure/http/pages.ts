import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type Config, publicBaseUrl } from '../../config.js';

// What every public disclosure page shares: rendering (the public layout), the plain error
// page, the one 404 (byte for byte the same for a disabled organisation, an unknown one, an
// unknown or revoked link), and the organisation's pages' addresses: absolute ones (security.txt,
// the follow-up link to keep) on PUBLIC_URL, else on HOST and PORT as the set-up link is, never
// on a request's Host header (anyone can send one); links within the pages by path alone.

export const DISCLOSE_PREFIX = '/disclose';
const SLUG = Type.String({ maxLength: 200 });

export interface PublicPages {
  page(reply: FastifyReply, template: string, data: Record<string, unknown>, status?: number): Promise<FastifyReply>;
  problem(reply: FastifyReply, status: number, title: string, message: string): Promise<FastifyReply>;
  notFound(reply: FastifyReply): Promise<FastifyReply>;
  /**
   * The 429 page of a refused rate-limit decision: "Too many <what>", with Retry-After and the
   * minutes to wait; `counted` says whose limit it was (the client's network address, or the
   * organisation's form as a whole).
   */
  tooMany(reply: FastifyReply, what: string, retryAfterSeconds: number, counted?: 'address' | 'form'): Promise<FastifyReply>;
  /** The organisation's pages, absolute: on PUBLIC_URL, else on HOST and PORT (`localhost` for every address). */
  base(request: FastifyRequest): string;
  /** The organisation's pages by path (`/disclose/{slug}`), for links from one page to another. */
  path(request: FastifyRequest): string;
  /** The slug of the path, or '' for one no organisation could have. */
  slugOf(request: FastifyRequest): string;
}

export function publicPages(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): PublicPages {
  const path: PublicPages['path'] = (request) => `${DISCLOSE_PREFIX}/${encodeURIComponent((request.params as { slug: string }).slug)}`;
  /** PORT, or the port the server listens on when PORT=0 lets the system choose (as server.ts prints the set-up link). */
  const site = (request: FastifyRequest) => {
    if (config.publicUrl) return config.publicUrl;
    const address = config.port === 0 ? request.server.server.address() : null;
    return publicBaseUrl({ ...config, port: address && typeof address === 'object' ? address.port : config.port });
  };
  const page: PublicPages['page'] = async (reply, template, data, status = 200) => {
    const html = await reply.viewAsync(template, { title: 'Vulnerability disclosure', org: null, ...data });
    return reply.code(status).type('text/html; charset=utf-8').send(html);
  };
  const problem: PublicPages['problem'] = (reply, status, title, message) => page(reply, 'problem', { title, message }, status);
  return {
    page,
    problem,
    notFound: (reply) => problem(reply, 404, 'Not found', 'There is no vulnerability disclosure page at this address.'),
    tooMany(reply, what, retryAfterSeconds, counted = 'address') {
      const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
      reply.header('retry-after', String(retryAfterSeconds));
      const came =
        counted === 'address'
          ? 'were sent from your network address in the last hour'
          : 'reached this form in the last hour, from all senders together';
      return problem(
        reply,
        429,
        `Too many ${what}`,
        `Too many ${what} ${came}. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      );
    },
    base: (request) => `${site(request)}${path(request)}`,
    path,
    slugOf(request) {
      const slug = (request.params as { slug: string }).slug;
      return Value.Check(SLUG, slug) ? slug : '';
    },
  };
}
