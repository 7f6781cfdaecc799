import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { publicBaseUrl } from '../config.js';
import { ROLES } from '../users/users.service.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { type FieldErrors, parseForm, serviceErrors } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';

// Members: everyone sees who belongs; owners invite (a one-time link, as `cra-admin user
// invite` prints), change roles and remove members.

const RoleSchema = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  { message: 'Choose a role: owner, admin, analyst or viewer.' },
);
const InviteForm = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]{2,}$', message: 'Enter an e-mail address.' }),
  role: RoleSchema,
});
const RoleForm = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }), role: RoleSchema });
const RemoveForm = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) });

export function registerMemberPages(org: FastifyInstance, deps: ConsoleDeps): void {
  const membersUrl = (request: FastifyRequest) => `/console/o/${encodeURIComponent(orgSlug(request))}/members`;

  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: FieldErrors; values?: Record<string, unknown>; invitation?: unknown; notice?: string } = {},
    status = 200,
  ) {
    const members = await deps.users.members(request.viewer!.org!.org_id);
    return render(request, reply, 'members', { title: 'Members', section: 'members', members, roles: ROLES, ...extra }, status);
  }

  org.get('/members', { config: { permission: 'read' } }, (request, reply) => {
    const done = (request.query as { done?: string }).done;
    return page(request, reply, {
      notice:
        done === 'role'
          ? 'The role is changed.'
          : done === 'removed'
            ? 'The member is removed; their access to this organisation has ended.'
            : undefined,
    });
  });

  org.post('/members/invite', { config: { permission: 'members' } }, async (request, reply) => {
    const form = parseForm(InviteForm, request.body);
    if (!form.ok) return page(request, reply, { errors: form.errors, values: form.values }, 400);
    try {
      const invitation = await deps.users.invite({
        org: orgSlug(request),
        email: form.value.email,
        role: form.value.role,
        actor: actorOf(request.viewer!),
      });
      // PUBLIC_URL, else the server's own address (as cra-admin user invite): never the Host
      // header, which whoever sends the request chooses.
      const origin = publicBaseUrl(deps.config);
      reply.header('cache-control', 'no-store');
      return page(request, reply, { invitation: { ...invitation, url: `${origin}/console/invite/${invitation.token}` } });
    } catch (error) {
      return page(request, reply, { errors: serviceErrors(error, 'email'), values: form.value }, 400);
    }
  });

  org.post('/members/role', { config: { permission: 'members' } }, async (request, reply) => {
    const form = parseForm(RoleForm, request.body);
    if (!form.ok) return page(request, reply, { errors: { _form: form.errors.role ?? 'Choose a member.' } }, 400);
    try {
      await deps.users.changeRole(request.viewer!.org!.org_id, form.value.email, form.value.role, actorOf(request.viewer!));
    } catch (error) {
      return page(request, reply, { errors: serviceErrors(error) }, 409);
    }
    return redirect(request, reply, `${membersUrl(request)}?done=role`);
  });

  org.post('/members/remove', { config: { permission: 'members' } }, async (request, reply) => {
    const form = parseForm(RemoveForm, request.body);
    if (!form.ok) return page(request, reply, { errors: { _form: 'Choose a member.' } }, 400);
    try {
      await deps.users.removeMember(request.viewer!.org!.org_id, form.value.email, actorOf(request.viewer!));
    } catch (error) {
      return page(request, reply, { errors: serviceErrors(error) }, 409);
    }
    return redirect(request, reply, `${membersUrl(request)}?done=removed`);
  });
}
