import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { may, type Permission } from './permissions.js';
import { csrfUserInfo } from './csrf.js';
import { helpers } from './format.js';

/** The main navigation; an entry with a permission is shown only to roles that have it. */
export const NAV: ReadonlyArray<{ path: string; label: string; permission?: Permission }> = [
  { path: 'today', label: 'Today' },
  { path: 'signals', label: 'Signals' },
  { path: 'cases', label: 'Cases' },
  { path: 'products', label: 'Products' },
  { path: 'vulnerabilities', label: 'Vulnerabilities' },
  { path: 'feeds', label: 'Feeds', permission: 'feeds' },
  { path: 'keys', label: 'API keys' },
  { path: 'webhooks', label: 'Webhooks' },
  { path: 'activity', label: 'Activity' },
  { path: 'members', label: 'Members' },
  { path: 'organisation', label: 'Organisation' },
  { path: 'disclosure', label: 'Disclosure' },
];

/** Renders a page (or fragment) with what every template may use: viewer, org, CSRF token, helpers. */
export async function render(
  request: FastifyRequest,
  reply: FastifyReply,
  template: string,
  data: Record<string, unknown> = {},
  status = 200,
): Promise<FastifyReply> {
  const viewer = request.viewer;
  const org = viewer?.org ?? null;
  const html = await reply.viewAsync(template, {
    viewer,
    org,
    base: org ? `/console/o/${encodeURIComponent(org.slug)}` : '/console',
    nav: NAV,
    csrf: reply.generateCsrf({ userInfo: csrfUserInfo(request) }),
    h: helpers,
    can: (permission: Permission) => (org ? may(org.role, permission) : false),
    errors: {},
    values: {},
    ...data,
  });
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/** The organisation of the page; the route's preHandler has already answered 404 without one. */
export function orgSlug(request: FastifyRequest): string {
  const org = request.viewer?.org;
  if (!org) throw new AppError('not_found', 'not found');
  return org.slug;
}
