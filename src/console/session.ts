import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEVICE_MS } from '../users/users.service.js';
import type { ConsoleDeps } from './context.js';

export const SESSION_COOKIE = 'cra_session';
/** A browser the person has signed in from: its own sign-in limit (users/sign-in-limits.ts). */
export const DEVICE_COOKIE = 'cra_device';

export function setSessionCookie(reply: FastifyReply, token: string): void {
  // Secure: browsers keep it on http://localhost too, and never send it over plain HTTP elsewhere.
  reply.setCookie(SESSION_COOKIE, token, { path: '/console', httpOnly: true, secure: true, sameSite: 'lax' });
}

export function setDeviceCookie(reply: FastifyReply, token: string): void {
  reply.setCookie(DEVICE_COOKIE, token, { path: '/console', httpOnly: true, secure: true, sameSite: 'strict', maxAge: DEVICE_MS / 1000 });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/console', httpOnly: true, secure: true, sameSite: 'lax' });
}

/** Sends the browser to `to`; htmx requests follow HX-Redirect instead of swapping in a page. */
export function redirect(request: FastifyRequest, reply: FastifyReply, to: string): FastifyReply {
  if (request.headers['hx-request']) return reply.header('hx-redirect', to).code(204).send();
  return reply.redirect(to, 303);
}

/** Resolves the session cookie into `request.viewer` on every console request. */
export function registerSessionLookup(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.decorateRequest('viewer', null);
  scope.addHook('preHandler', async (request) => {
    const token = request.cookies[SESSION_COOKIE];
    if (!token) return;
    const signedIn = await deps.users.resolveSession(token);
    if (!signedIn) return;
    request.viewer = {
      user: signedIn.user,
      memberships: signedIn.memberships,
      sessionDigest: signedIn.session.idDigest,
      org: null,
      stage: signedIn.session.stage,
    };
  });
}

/** On /console/o/:org/… pages: the viewer's membership of that organisation, or null (permissions.ts answers 404). */
export function orgOf(request: FastifyRequest): void {
  const slug = (request.params as { org?: string }).org;
  const membership = request.viewer?.memberships.find((m) => m.slug === slug) ?? null;
  if (request.viewer) request.viewer.org = membership;
}
