import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import helmet from '@fastify/helmet';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { escapeForPage } from '../../console/format.js';
import { publicRoutesOnly } from '../../console/permissions.js';
import { AppError } from '../../errors.js';
import type { BodyPace } from '../../http/body-pace.js';
import type { RateLimitStore } from '../../http/rate-limit/store.js';
import type { DisclosureService } from '../disclosure.service.js';
import { renderPolicy } from '../policy-markdown.js';
import { securityTxt } from '../security-txt.js';
import { registerFollowUp } from './follow-up.routes.js';
import { DISCLOSE_PREFIX, publicPages } from './pages.js';
import { PUBLIC_VIEWS_DIR } from './paths.js';
import { registerReportForm } from './report-form.routes.js';

// The public disclosure pages of disclosure.md under /disclose/{org-slug}: the policy, the
// report form (report-form.routes.ts), security.txt and the reporter's follow-up page
// (follow-up.routes.ts). No sign-in; server-rendered with the console's CSP and stylesheet,
// no script at all; every error a plain page. An organisation that has not enabled them answers
// exactly as one that does not exist.

export { DISCLOSE_PREFIX };

export interface DisclosurePagesDeps {
  config: Config;
  disclosure: DisclosureService;
  rateLimitStore: RateLimitStore;
  /** HMAC key of the form tokens (services.disclosureCsrfKey). */
  csrfKey: Buffer;
  /** The least pace of a report's body; REPORT_BODY_PACE unless a test says otherwise. */
  bodyPace?: BodyPace;
}

export async function registerDisclosurePages(app: FastifyInstance, deps: DisclosurePagesDeps): Promise<void> {
  const { disclosure, config } = deps;
  const pages = publicPages(config);
  const { page, problem, notFound, base, path, slugOf } = pages;
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
      // Anonymous pages, each route declared so (`permission: 'public'`): none may ask for a session.
      publicRoutesOnly(scope);
      scope.addHook('onRequest', (_request, reply, done) => {
        // Follow-up pages hold a capability, the form a token: nothing is kept in a cache.
        reply.header('cache-control', 'no-store');
        done();
      });

      scope.setNotFoundHandler((_request, reply) => notFound(reply));
      scope.setErrorHandler(async (error: FastifyError, request, reply) => {
        if (error.code?.startsWith('FST_CSRF'))
          return problem(
            reply,
            403,
            'Form expired',
            'This form has expired or was not sent from this site. Go back, reload the page and send it again.',
          );
        if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
          return problem(reply, 415, 'Not accepted', 'This page takes a form sent from its own page, nothing else.');
        if (error.statusCode === 413) return problem(reply, 413, 'Too large', 'What was sent is larger than this page accepts.');
        if (error instanceof AppError && error.code === 'service_unavailable')
          return problem(reply, 503, 'Unavailable', 'Reports cannot be received right now. Try again later.');
        if (error.statusCode && error.statusCode < 500)
          return problem(reply, error.statusCode, 'Bad request', 'The request could not be read.');
        request.log.error({ err: error }, 'disclosure page failed');
        return problem(reply, 500, 'Something went wrong', `The request failed. Reference: ${request.id}`);
      });

      scope.get('/:slug', { config: { permission: 'public' } }, async (request, reply) => {
        const shown = await disclosure.publicPages(slugOf(request));
        if (!shown) return notFound(reply);
        return page(reply, 'policy', {
          title: `Vulnerability disclosure · ${shown.org.name}`,
          org: shown.org,
          path: path(request),
          policyHtml: renderPolicy(shown.settings.policy),
          acknowledgeDays: shown.settings.acknowledgeDays,
          products: shown.products,
        });
      });

      scope.get('/:slug/security.txt', { config: { permission: 'public' } }, async (request, reply) => {
        const shown = await disclosure.publicPages(slugOf(request));
        if (!shown) return notFound(reply);
        const text = securityTxt({
          pagesUrl: base(request),
          expiresAt: shown.settings.expiresAt,
          preferredLanguages: shown.settings.preferredLanguages,
        });
        return reply.type('text/plain; charset=utf-8').send(text);
      });

      scope.get('/:slug/report', { config: { permission: 'public' } }, async (request, reply) => {
        const shown = await disclosure.publicPages(slugOf(request));
        if (!shown) return notFound(reply);
        return page(reply, 'report', {
          title: `Report a vulnerability · ${shown.org.name}`,
          org: shown.org,
          path: path(request),
          csrf: reply.generateCsrf({ userInfo: `disclose:${shown.org.slug}` }),
          products: shown.products,
          acknowledgeDays: shown.settings.acknowledgeDays,
        });
      });

      await registerFollowUp(scope, { ...deps, pages });
      await registerReportForm(scope, { ...deps, pages });
    },
    { prefix: DISCLOSE_PREFIX },
  );
}
