import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { registerAssets } from './assets.js';
import { registerCsrf } from './csrf.js';
import { escapeForPage } from './format.js';
import type { ConsoleDeps } from './context.js';
import { registerAccountPages } from './account.page.js';
import { registerActivityPages } from './activity.page.js';
import { registerAuthPages } from './auth.page.js';
import { registerCasePages } from './cases.page.js';
import { registerDisclosurePages } from './disclosure.page.js';
import { registerCpeCandidatesPage } from './cpe-candidates.page.js';
import { registerFeedsPage } from './feeds.page.js';
import { registerKeyPages } from './keys.page.js';
import { registerMemberPages } from './members.page.js';
import { registerOrganisationPage } from './organisation.page.js';
import { registerConformancePages } from './conformance.page.js';
import { registerPortfolioPages } from './portfolio.page.js';
import { registerProductPages } from './products.page.js';
import { registerSbomUpload } from './sbom-upload.page.js';
import { registerSetupGate, registerSetupPages } from './setup.page.js';
import { registerSignalPages } from './signals.page.js';
import { registerTodayPage } from './today.page.js';
import { registerVulnerabilityPages } from './vulnerabilities.page.js';
import { registerWebhookPages } from './webhooks.page.js';
import { VIEWS_DIR } from './paths.js';
import { render } from './render.js';
import { registerPermissions } from './permissions.js';
import { registerSessionLookup } from './session.js';

// The web console under /console. Everything here is encapsulated in one Fastify scope: its
// cookies, form parsers, security headers, CSRF check, templates and error pages never touch
// the API's routes, headers or OpenAPI document.

export const CONSOLE_PREFIX = '/console';

export async function registerConsole(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  await app.register(
    async (scope) => {
      await scope.register(cookie);
      await scope.register(formbody);
      await scope.register(helmet, {
        contentSecurityPolicy: {
          useDefaults: false,
          directives: {
            defaultSrc: ["'none'"],
            scriptSrc: ["'self'"],
            styleSrc: ["'self'"],
            imgSrc: ["'self'", 'data:'],
            connectSrc: ["'self'"],
            formAction: ["'self'"],
            frameAncestors: ["'none'"],
            baseUri: ["'none'"],
          },
        },
      });
      await scope.register(view, {
        engine: { eta: new Eta({ views: VIEWS_DIR, cache: true, autoEscape: true, escapeFunction: escapeForPage }) },
        templates: VIEWS_DIR,
        production: true,
      });

      // No console answer is kept in a browser's or a proxy's cache: pages hold what only the
      // signed-in person may see, forms hold CSRF tokens. Static assets set their own.
      scope.addHook('onRequest', (_request, reply, done) => {
        reply.header('cache-control', 'no-store');
        done();
      });
      registerSessionLookup(scope, deps);
      // Until someone has claimed the instance with its set-up link, the console says only that.
      registerSetupGate(scope, deps);
      await registerCsrf(scope, deps.config, deps.consoleCsrfKey);
      // Before any route (each declares its permission) and after the session and CSRF checks.
      registerPermissions(scope);
      registerErrorPages(scope);
      registerAssets(scope);
      registerAuthPages(scope, deps);
      registerSetupPages(scope, deps);

      scope.get('/', { config: { permission: 'signed-in' } }, async (request, reply) => {
        const first = request.viewer!.memberships[0];
        if (first) return reply.redirect(`/console/o/${encodeURIComponent(first.slug)}/today`, 303);
        return render(request, reply, 'no-org');
      });
      registerAccountPages(scope, deps);
      await scope.register(
        async (org) => {
          registerTodayPage(org, deps);
          registerSignalPages(org, deps);
          registerCasePages(org, deps);
          registerKeyPages(org, deps);
          registerProductPages(org, deps);
          registerConformancePages(org, deps);
          registerPortfolioPages(org, deps);
          registerVulnerabilityPages(org, deps);
          registerCpeCandidatesPage(org, deps);
          registerFeedsPage(org, deps);
          registerActivityPages(org, deps);
          registerMemberPages(org, deps);
          registerOrganisationPage(org, deps);
          registerWebhookPages(org, deps);
          registerDisclosurePages(org, deps);
          // Multipart is parsed in this scope alone: every other route refuses it unread (415).
          await org.register(async (upload) => registerSbomUpload(upload, deps));
        },
        { prefix: '/o/:org' },
      );
    },
    { prefix: CONSOLE_PREFIX },
  );
}

function registerErrorPages(scope: FastifyInstance): void {
  scope.setNotFoundHandler((request, reply) =>
    render(request, reply, 'error', { title: 'Not found', message: 'There is nothing at this address, or it is not yours to see.' }, 404),
  );
  scope.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (error instanceof AppError && (error.code === 'not_found' || error.code === 'product_not_found')) {
      return render(
        request,
        reply,
        'error',
        { title: 'Not found', message: 'There is nothing at this address, or it is not yours to see.' },
        404,
      );
    }
    if (error instanceof AppError && error.code === 'service_unavailable')
      return render(request, reply, 'error', { title: 'Unavailable', message: error.message }, 503);
    if (error instanceof AppError && error.code === 'forbidden')
      return render(request, reply, 'error', { title: 'Not allowed', message: error.message }, 403);
    if (error.code?.startsWith('FST_CSRF')) {
      return render(
        request,
        reply,
        'error',
        { title: 'Form expired', message: 'This form has expired or did not come from this site. Go back, reload the page and try again.' },
        403,
      );
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return render(
        request,
        reply,
        'error',
        { title: 'Not accepted', message: 'This form takes no file or other content of this type.' },
        415,
      );
    }
    if (error.statusCode === 413 || error.code === 'FST_REQ_FILE_TOO_LARGE') {
      return render(request, reply, 'error', { title: 'Too large', message: 'The upload is larger than this server accepts.' }, 413);
    }
    if (error.statusCode && error.statusCode < 500)
      return render(request, reply, 'error', { title: 'Bad request', message: 'The request could not be read.' }, error.statusCode);
    request.log.error({ err: error }, 'console request failed');
    return render(
      request,
      reply,
      'error',
      { title: 'Something went wrong', message: `The request failed; nothing secret was shown. Reference: ${request.id}` },
      500,
    );
  });
}
