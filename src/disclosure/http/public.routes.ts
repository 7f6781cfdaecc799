import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import view from '@fastify/view';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import type { RateLimitStore } from '../../http/rate-limit/store.js';
import { createBodyBudget } from '../../sbom/http/body-budget.js';
import { escapeForPage } from '../../console/format.js';
import type { DisclosureService } from '../disclosure.service.js';
import { newFollowToken } from '../follow-token.js';
import { renderPolicy } from '../policy-markdown.js';
import { securityTxt } from '../security-txt.js';
import { PUBLIC_VIEWS_DIR } from './paths.js';
import { MAX_FORM_BYTES, MULTIPART_LIMITS, readReport } from './read-report.js';

// The public disclosure pages of disclosure.md under /disclose/{org-slug}: the policy, the
// report form, security.txt and the reporter's follow-up page. No sign-in; server-rendered with
// the console's CSP and stylesheet; every error a plain page. An organisation that has not
// enabled them answers exactly as one that does not exist.

export const DISCLOSE_PREFIX = '/disclose';

/** disclosure.md: 10 reports per address per organisation per hour, 30 per address over all. */
export const REPORT_LIMITS = { windowMs: 3_600_000, perOrganisation: 10, perAddress: 30 } as const;
/** The report form's deadline for the whole request (its attachments may be large). */
const REPORT_DEADLINE_MS = 5 * 60_000;
/** Messages through follow-up links, per client address per hour: a conversation, not a flood. */
export const MESSAGE_LIMIT = 30;
/** Report bodies in memory at once; one organisation's hold at most half (one report of the maximum size always fits). */
const INFLIGHT_BYTES = 2 * MAX_FORM_BYTES;

export interface DisclosurePagesDeps {
  config: Config;
  disclosure: DisclosureService;
  rateLimitStore: RateLimitStore;
  /** HMAC key of the form tokens (services.disclosureCsrfKey). */
  csrfKey: Buffer;
}

const SLUG = Type.String({ maxLength: 200 });
const optionalText = (max: number, label: string) =>
  Type.Optional(Type.String({ maxLength: max, message: `${label}: at most ${max} characters.` }));
const ReportForm = Type.Object({
  product: Type.Optional(Type.String({ maxLength: 100 })),
  title: optionalText(200, 'Title'),
  description: Type.String({
    minLength: 1,
    maxLength: 20_000,
    pattern: '\\S',
    message: 'Description: describe the vulnerability (up to 20000 characters).',
  }),
  cve: Type.Optional(
    Type.Union([Type.Literal(''), Type.String({ pattern: '^\\s*CVE-\\d{4}-\\d{4,}\\s*$' })], {
      message: 'CVE: give it as CVE-YYYY-NNNN, or leave it empty.',
    }),
  ),
  affected_versions: optionalText(500, 'Affected versions'),
  how_found: optionalText(5_000, 'How it was found'),
  reporter_name: optionalText(200, 'Your name'),
  reporter_contact: optionalText(300, 'How to reach you'),
  credit: optionalText(200, 'Credit'),
  website: Type.Optional(Type.String()),
});
type ReportFields = Static<typeof ReportForm>;
const MessageForm = Type.Object({ message: Type.String({ minLength: 1, maxLength: 10_000 }) });

export async function registerDisclosurePages(app: FastifyInstance, deps: DisclosurePagesDeps): Promise<void> {
  const { disclosure, config, rateLimitStore } = deps;
  const bodies = createBodyBudget({ budgetBytes: INFLIGHT_BYTES, maxBodyBytes: MAX_FORM_BYTES });
  await app.register(
    async (scope) => {
      await scope.register(cookie);
      await scope.register(helmet, {
        contentSecurityPolicy: {
          useDefaults: false,
          directives: {
            defaultSrc: ["'none'"],
            scriptSrc: ["'self'"],
            styleSrc: ["'self'"],
            imgSrc: ["'self'"],
            formAction: ["'self'"],
            frameAncestors: ["'none'"],
            baseUri: ["'none'"],
          },
        },
      });
      await scope.register(view, {
        engine: { eta: new Eta({ views: PUBLIC_VIEWS_DIR, cache: true, autoEscape: true, escapeFunction: escapeForPage }) },
        templates: PUBLIC_VIEWS_DIR,
        production: true,
      });
      const secureSite = config.publicUrl?.startsWith('https:') === true;
      await scope.register(csrf, {
        cookieKey: secureSite ? '__Host-cra_disclose' : 'cra_disclose',
        cookieOpts: { httpOnly: true, secure: true, sameSite: 'lax', path: secureSite ? '/' : DISCLOSE_PREFIX },
        // A token of one organisation's form is worth nothing on another's.
        getUserInfo: (request) => `disclose:${(request.params as { slug?: string }).slug ?? ''}`,
        csrfOpts: { hmacKey: deps.csrfKey },
      });
      scope.addHook('onRequest', (_request, reply, done) => {
        // Follow-up pages hold a capability, the form a token: nothing is kept in a cache.
        reply.header('cache-control', 'no-store');
        done();
      });

      const page = async (_request: FastifyRequest, reply: FastifyReply, template: string, data: Record<string, unknown>, status = 200) => {
        const html = await reply.viewAsync(template, { title: 'Vulnerability disclosure', org: null, ...data });
        return reply.code(status).type('text/html; charset=utf-8').send(html);
      };
      const problem = (request: FastifyRequest, reply: FastifyReply, status: number, title: string, message: string, extra = {}) =>
        page(request, reply, 'problem', { title, message, ...extra }, status);
      const notFound = (request: FastifyRequest, reply: FastifyReply) =>
        problem(request, reply, 404, 'Not found', 'There is no vulnerability disclosure page at this address.');

      scope.setNotFoundHandler((request, reply) => notFound(request, reply));
      scope.setErrorHandler(async (error: FastifyError, request, reply) => {
        if (error.code?.startsWith('FST_CSRF'))
          return problem(
            request,
            reply,
            403,
            'Form expired',
            'This form has expired or was not sent from this site. Go back, reload the page and send it again.',
          );
        if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
          return problem(request, reply, 415, 'Not accepted', 'This page takes a form sent from its own page, nothing else.');
        if (error.statusCode === 413) return problem(request, reply, 413, 'Too large', 'What was sent is larger than this page accepts.');
        if (error instanceof AppError && error.code === 'service_unavailable')
          return problem(request, reply, 503, 'Unavailable', 'Reports cannot be received right now. Try again later.');
        if (error.statusCode && error.statusCode < 500)
          return problem(request, reply, error.statusCode, 'Bad request', 'The request could not be read.');
        request.log.error({ err: error }, 'disclosure page failed');
        return problem(request, reply, 500, 'Something went wrong', `The request failed. Reference: ${request.id}`);
      });

      const base = (request: FastifyRequest) =>
        `${config.publicUrl ?? `${request.protocol}://${request.host}`}${DISCLOSE_PREFIX}/${encodeURIComponent((request.params as { slug: string }).slug)}`;
      const slugOf = (request: FastifyRequest) => {
        const slug = (request.params as { slug: string }).slug;
        return Value.Check(SLUG, slug) ? slug : '';
      };

      scope.get('/:slug', async (request, reply) => {
        const pages = await disclosure.publicPages(slugOf(request));
        if (!pages) return notFound(request, reply);
        return page(request, reply, 'policy', {
          title: `Vulnerability disclosure · ${pages.org.name}`,
          org: pages.org,
          base: base(request),
          policyHtml: renderPolicy(pages.settings.policy),
          acknowledgeDays: pages.settings.acknowledgeDays,
          products: pages.products,
        });
      });

      scope.get('/:slug/security.txt', async (request, reply) => {
        const pages = await disclosure.publicPages(slugOf(request));
        if (!pages) return notFound(request, reply);
        const text = securityTxt({
          pagesUrl: base(request),
          expiresAt: pages.settings.expiresAt,
          preferredLanguages: pages.settings.preferredLanguages,
        });
        return reply.type('text/plain; charset=utf-8').send(text);
      });

      scope.get('/:slug/report', async (request, reply) => {
        const pages = await disclosure.publicPages(slugOf(request));
        if (!pages) return notFound(request, reply);
        return page(request, reply, 'report', {
          title: `Report a vulnerability · ${pages.org.name}`,
          org: pages.org,
          base: base(request),
          csrf: reply.generateCsrf({ userInfo: `disclose:${pages.org.slug}` }),
          products: pages.products,
          acknowledgeDays: pages.settings.acknowledgeDays,
        });
      });

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
          if (!view) return notFound(request, reply);
          return page(
            request,
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
        follow.get('/:slug/follow/:token', (request, reply) => show(request, reply, null, null));
        follow.post('/:slug/follow/:token', async (request, reply) => {
          const { token } = request.params as { token: string };
          const body = request.body as { message?: unknown } | undefined;
          const message = typeof body?.message === 'string' ? body.message : '';
          if (!Value.Check(MessageForm, { message }) || !message.trim())
            return show(request, reply, null, 'Write a message of at most 10000 characters.', 400);
          const decision = await rateLimitStore.consume(`disclose:message:${request.ip}`, MESSAGE_LIMIT, REPORT_LIMITS.windowMs);
          if (!decision.allowed) {
            const minutes = Math.max(1, Math.ceil(decision.retryAfterSeconds / 60));
            reply.header('retry-after', String(decision.retryAfterSeconds));
            return problem(
              request,
              reply,
              429,
              'Too many messages',
              `Too many messages were sent from your network address in the last hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
            );
          }
          const sent = await disclosure.reporterMessage(slugOf(request), token, message);
          if (!sent) return notFound(request, reply);
          return show(request, reply, 'Your message was sent to the team.', null);
        });
      });

      // The report form: the only route with a multipart parser, registered in its own scope.
      await scope.register(async (upload) => {
        await upload.register(multipart, { limits: MULTIPART_LIMITS });
        // 50 MiB of attachments need longer than REQUEST_TIMEOUT_MS on a slow line: up to 5 minutes
        // (within the server's longest deadline); a body that stalls is still cut by BODY_IDLE_TIMEOUT_MS.
        const requestTimeoutMs = Math.max(config.requestTimeoutMs, Math.min(REPORT_DEADLINE_MS, config.sbomRequestTimeoutMs));
        upload.post('/:slug/report', { config: { requestTimeoutMs } }, async (request, reply) => {
          // Every answer given before the body is read closes the connection: the body is never drained.
          reply.header('connection', 'close');
          const pages = await disclosure.publicPages(slugOf(request));
          if (!pages) return notFound(request, reply);
          const address = request.ip;
          // Every post counts, before a byte of its body is read: across all organisations, then this one.
          for (const [bucket, limit] of [
            [`disclose:address:${address}`, REPORT_LIMITS.perAddress],
            [`disclose:org:${pages.org.id}:${address}`, REPORT_LIMITS.perOrganisation],
          ] as const) {
            const decision = await rateLimitStore.consume(bucket, limit, REPORT_LIMITS.windowMs);
            if (!decision.allowed) {
              const minutes = Math.max(1, Math.ceil(decision.retryAfterSeconds / 60));
              reply.header('retry-after', String(decision.retryAfterSeconds));
              return problem(
                request,
                reply,
                429,
                'Too many reports',
                `Too many reports were sent from your network address in the last hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
              );
            }
          }
          if (!request.isMultipart())
            return problem(request, reply, 415, 'Not accepted', 'This page takes a form sent from its own page, nothing else.');
          const declared = Number(request.headers['content-length']);
          if (declared > MAX_FORM_BYTES) return tooLarge(request, reply);
          const size = Number.isFinite(declared) && declared >= 0 ? declared : MAX_FORM_BYTES;
          const held = bodies.hold(request, reply, pages.org.id, size);
          if (held === 'gone') return reply;
          if (held !== 'held') {
            reply.header('retry-after', '5');
            return problem(request, reply, 503, 'Busy', 'Too many reports are being received right now. Try again in a few seconds.');
          }
          const read = await readReport(scope, request, reply);
          // Read to its end: the connection may serve the next request.
          if (read.ok) reply.removeHeader('connection');
          if (!read.ok) {
            if (read.problem === 'refused') return reply;
            if (read.problem === 'too_large') return tooLarge(request, reply);
            return problem(request, reply, 400, 'Bad request', 'The form could not be read. Go back and send it again.');
          }
          const fields = read.fields as ReportFields;
          const errors = [...Value.Errors(ReportForm, fields)].map((e) => e.schema.message ?? `${e.path.slice(1)}: ${e.message}`);
          if (errors.length > 0) {
            // No input is reflected: the page names what is wrong, the browser's Back keeps what was typed.
            return page(
              request,
              reply,
              'invalid',
              { title: 'Report not sent', org: pages.org, errors: [...new Set(errors)], base: base(request) },
              400,
            );
          }
          // A filled honeypot: a bot. It sees the normal confirmation, and nothing is created.
          if (fields.website?.trim()) {
            return page(request, reply, 'sent', {
              title: 'Report received',
              org: pages.org,
              link: `${base(request)}/follow/${newFollowToken().token}`,
              acknowledgeDays: pages.settings.acknowledgeDays,
            });
          }
          try {
            const received = await disclosure.receiveReport(pages.org.slug, {
              productId: fields.product && fields.product !== 'unsure' ? fields.product : null,
              title: fields.title ?? null,
              description: fields.description,
              cve: fields.cve?.trim() || null,
              affectedVersions: fields.affected_versions ?? null,
              howFound: fields.how_found ?? null,
              reporterName: fields.reporter_name ?? null,
              reporterContact: fields.reporter_contact ?? null,
              credit: fields.credit ?? null,
              attachments: read.files,
            });
            if (!received) return notFound(request, reply);
            return page(request, reply, 'sent', {
              title: 'Report received',
              org: pages.org,
              link: `${base(request)}/follow/${received.token}`,
              acknowledgeDays: pages.settings.acknowledgeDays,
            });
          } catch (error) {
            if (error instanceof AppError && error.code === 'validation_failed')
              return page(
                request,
                reply,
                'invalid',
                { title: 'Report not sent', org: pages.org, errors: [error.message], base: base(request) },
                400,
              );
            throw error;
          }
        });
      });

      function tooLarge(request: FastifyRequest, reply: FastifyReply) {
        // The rest of the body is not read: the connection closes after this answer (set above).
        return problem(
          request,
          reply,
          413,
          'Too large',
          'The report is larger than this form accepts: at most 5 attachments of at most 10 MiB each, and texts of at most 64 KiB.',
        );
      }
    },
    { prefix: DISCLOSE_PREFIX },
  );
}
