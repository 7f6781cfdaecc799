import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Role } from '../db/schema.js';
import { AppError } from '../errors.js';
import { orgOf, redirect } from './session.js';

// Who may reach each console route. A route states it where it is registered,
// `config: { permission }`, and one preHandler here enforces it; a route that states nothing
// cannot be registered (the onRoute hook throws), so a new page cannot forget it.

/** What a role may do in its organisation. `read`: every page of it (any member). */
export type Permission =
  | 'read'
  | 'keys'
  | 'products'
  | 'sbom'
  | 'cases'
  | 'members'
  | 'settings'
  | 'webhooks'
  | 'analysis'
  | 'feeds'
  | 'disclosure';

/**
 * A route's access: `public` needs no session (sign-in, invitations, set-up, enrolment, assets;
 * the disclosure pages are all public); `signed-in` a person with a full session, in no
 * organisation (their account); a permission, a member of the organisation in the address
 * (`/o/:org/…`) whose role has it.
 */
export type Access = 'public' | 'signed-in' | Permission;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may reach the route (console/permissions.ts); every console and disclosure route states it. */
    permission?: Access;
  }
}

/**
 * The one table of roles (console.md): owner may everything; admin keys, products, settings
 * (organisation details, disclosure settings, webhook endpoints), analyses and the Feeds page;
 * analyst triage, cases and reports, SBOM uploads, analyses and the disclosure reports' reporter,
 * attachments and answers; viewer reads everything of the organisation and changes nothing.
 */
const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ['read', 'keys', 'products', 'sbom', 'cases', 'members', 'settings', 'webhooks', 'analysis', 'feeds', 'disclosure'],
  admin: ['read', 'keys', 'products', 'sbom', 'settings', 'webhooks', 'analysis', 'feeds', 'disclosure'],
  analyst: ['read', 'sbom', 'cases', 'analysis', 'disclosure'],
  viewer: ['read'],
};

/**
 * Refused as if nothing were there (404) rather than "Not allowed" (403): a viewer is not told
 * that a disclosure report has a reporter's identity or attachments (disclosure.md).
 */
const REFUSED_AS_ABSENT: ReadonlySet<Permission> = new Set(['disclosure']);

const PERMISSIONS = new Set<string>(Object.values(GRANTS).flat());
const ORG_ROUTE = /\/o\/:org(\/|$)/;

export function may(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** What a route declares, or why it cannot be registered: none, unknown, or not fitting its address. */
function declared(route: RouteOptions): Access {
  const access = route.config?.permission;
  const where = `${String(route.method)} ${route.url}`;
  if (access === undefined) throw new Error(`${where} declares no permission: give it config: { permission } (console/permissions.ts)`);
  if (access !== 'public' && access !== 'signed-in' && !PERMISSIONS.has(access))
    throw new Error(`${where} declares an unknown permission "${access}"`);
  // An organisation's page is checked against the person's role in it; anywhere else there is no role to check.
  const permission = access !== 'public' && access !== 'signed-in';
  if (ORG_ROUTE.test(route.url) && !permission)
    throw new Error(`${where} is an organisation's page: it needs a permission, not "${access}"`);
  if (!ORG_ROUTE.test(route.url) && permission) throw new Error(`${where} has no organisation to hold "${access}" in`);
  return access;
}

/**
 * The console's routes must declare their access; one preHandler enforces it. Registered after
 * the session lookup and the CSRF check (their preHandlers run first, as before) and before any
 * route.
 */
export function registerPermissions(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => void declared(route));
  scope.addHook('preHandler', async (request, reply) => {
    // The not-found page is no route and declares nothing; it shows nothing either.
    const access = request.routeOptions.config.permission;
    if (access === undefined || access === 'public') return;
    if (!signedIn(request, reply)) return reply;
    if (access === 'signed-in') return;
    orgOf(request);
    const org = request.viewer!.org;
    // Another organisation's page answers as if it did not exist, whatever the role.
    if (!org) throw new AppError('not_found', 'not found');
    if (may(org.role, access)) return;
    if (REFUSED_AS_ABSENT.has(access)) throw new AppError('not_found', 'not found');
    throw new AppError('forbidden', `Your role in ${org.name} (${org.role}) does not allow this change.`);
  });
}

/** Anonymous → the sign-in page (and back); enrolment pending → the enrolment page. False when it has answered. */
function signedIn(request: FastifyRequest, reply: FastifyReply): boolean {
  if (!request.viewer) {
    void redirect(request, reply, `/console/sign-in?next=${encodeURIComponent(request.url)}`);
    return false;
  }
  if (request.viewer.stage !== 'full') {
    void redirect(request, reply, '/console/enrol');
    return false;
  }
  return true;
}

/** The disclosure pages have no session: each route must say it is public, and none may ask for more. */
export function publicRoutesOnly(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    if (declared(route) !== 'public')
      throw new Error(`${String(route.method)} ${route.url}: these pages have no session, so every route is public`);
  });
}
