import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { PasswordForm } from './auth.page.js';
import type { ConsoleDeps } from './context.js';
import { type FieldErrors, parseForm, serviceErrors } from './forms.js';
import { render } from './render.js';
import { redirect, setSessionCookie } from './session.js';

// First-run set-up: while no console user exists, every console page says only that the
// instance is not set up and where the link is; the one-time link printed by the server (or
// `cra-admin setup-link`) creates the first organisation and its owner, who then enrols an
// authenticator on the invitation's own pages (/console/enrol, the recovery codes) and lands on
// Today.

const SetupForm = Type.Composite([
  Type.Object({
    org_name: Type.String({ minLength: 1, maxLength: 200, message: 'Give the organisation a name of 1 to 200 characters.' }),
    org_slug: Type.Optional(Type.String({ maxLength: 63, message: 'At most 63 characters.' })),
    email: Type.String({ minLength: 3, maxLength: 254, message: 'Enter your e-mail address.' }),
  }),
  PasswordForm,
]);

/** Routes a person may reach before set-up: the set-up link itself, invitations from cra-admin, and the assets. */
const BEFORE_SETUP = ['/console/setup/:token', '/console/invite/:token', '/console/assets/'];

/**
 * Every other console request, while no user exists, gets only the not-set-up page. On
 * onRequest, so that it answers before anything else looks at the request, addresses that
 * match no page included.
 */
export function registerSetupGate(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url ?? '';
    if (BEFORE_SETUP.some((open) => route.startsWith(open))) return;
    if (await deps.setup.pending()) return render(request, reply, 'not-set-up');
  });
}

export function registerSetupPages(scope: FastifyInstance, deps: ConsoleDeps): void {
  const tokenOf = (request: FastifyRequest) => (request.params as { token: string }).token;

  /** The link's refusal as a page, or rethrows what is not one. */
  function refusal(request: FastifyRequest, reply: FastifyReply, error: unknown) {
    if (error instanceof AppError && error.code === 'not_found')
      return render(request, reply, 'error', { title: 'Set-up link not valid', message: error.message }, 404);
    if (error instanceof AppError && error.code === 'conflict')
      return render(request, reply, 'error', { title: 'Already set up', message: error.message }, 409);
    throw error;
  }

  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { errors?: FieldErrors; values?: Record<string, unknown> },
    status = 200,
  ) => {
    // The page's address holds the token: kept out of caches.
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'setup', data, status);
  };

  scope.get('/setup/:token', { config: { permission: 'public' } }, async (request, reply) => {
    try {
      await deps.setup.checkLink(tokenOf(request));
    } catch (error) {
      return refusal(request, reply, error);
    }
    return page(request, reply, {});
  });

  scope.post('/setup/:token', { config: { permission: 'public' } }, async (request, reply) => {
    try {
      await deps.setup.checkLink(tokenOf(request));
    } catch (error) {
      return refusal(request, reply, error);
    }
    const form = parseForm(SetupForm, request.body);
    const values = { ...(form.ok ? form.value : form.values), password: undefined, confirm: undefined };
    if (!form.ok) return page(request, reply, { errors: form.errors, values }, 400);
    if (form.value.password !== form.value.confirm)
      return page(request, reply, { errors: { confirm: 'The two passwords differ.' }, values }, 400);
    try {
      const claimed = await deps.setup.claim(tokenOf(request), {
        orgName: form.value.org_name,
        orgSlug: (form.value.org_slug ?? '').toLowerCase(),
        email: form.value.email,
        password: form.value.password,
      });
      setSessionCookie(reply, claimed.token);
    } catch (error) {
      if (error instanceof AppError && error.code === 'validation_failed' && error.details?.[0])
        return page(request, reply, { errors: { [error.details[0].path]: error.message }, values }, 400);
      if (error instanceof AppError && (error.code === 'not_found' || error.code === 'conflict')) return refusal(request, reply, error);
      return page(request, reply, { errors: serviceErrors(error), values }, 400);
    }
    return redirect(request, reply, '/console/enrol');
  });
}
