import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SCOPES, type Scope } from '../keys/scopes.js';
import { parseDuration, parseTimestamp } from '../shared/time.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { apiBaseUrl, EXAMPLE_SKU, firstSteps, keyUsage } from './first-steps.js';
import { parseForm, serviceErrors, type FieldErrors } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';

// API keys, the account area: create (secret shown once), list, rotate with grace, revoke.

const CreateKeyForm = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, message: 'Give the key a name of 1 to 100 characters.' }),
  scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { minItems: 1, message: 'Choose at least one scope.' }),
  expires: Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2})?$', message: 'Give the expiry as a date, YYYY-MM-DD, or leave it empty.' }),
});
const KeyNameForm = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) });
const RotateForm = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  grace: Type.String({
    pattern: '^(\\d+[smhd])?$',
    message: 'Give the grace period as a number and a unit, e.g. 10m, 2h or 1d, or leave it empty.',
  }),
});

export function registerKeyPages(org: FastifyInstance, deps: ConsoleDeps): void {
  async function listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: FieldErrors; values?: Record<string, unknown>; notice?: string } = {},
    status = 200,
  ) {
    const keys = await deps.keys.listKeys(orgSlug(request));
    const now = deps.clock().toISOString();
    const rows = keys.map((k) => ({ ...k, live: !k.revoked_at && !(k.expires_at && k.expires_at <= now) }));
    const steps = firstSteps(apiBaseUrl(request, deps.config), orgSlug(request), EXAMPLE_SKU);
    return render(request, reply, 'keys', { title: 'API keys', section: 'keys', keys: rows, scopes: SCOPES, steps, ...extra }, status);
  }

  /** The new secret, once, with the requests it allows spelled out for curl. */
  async function secretPage(request: FastifyRequest, reply: FastifyReply, key: { secret: string; scopes: Scope[] }, verb: string) {
    const sku = (await deps.products.listProducts(orgSlug(request)))[0]?.sku ?? EXAMPLE_SKU;
    const usage = keyUsage(apiBaseUrl(request, deps.config), key.secret, key.scopes, sku);
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'key-secret', { title: `Key ${verb}`, section: 'keys', key, verb, usage });
  }

  org.get('/keys', { config: { permission: 'read' } }, async (request, reply) => {
    const done = (request.query as { done?: string }).done;
    return listPage(request, reply, {
      notice: done === 'revoked' ? 'The key is revoked: the API refuses it from the next request on.' : undefined,
    });
  });

  org.post('/keys', { config: { permission: 'keys' } }, async (request, reply) => {
    const form = parseForm(CreateKeyForm, request.body);
    if (!form.ok) return listPage(request, reply, { errors: form.errors, values: form.values }, 400);
    const expiresAt = form.value.expires ? parseTimestamp(form.value.expires) : null;
    if (form.value.expires && !expiresAt)
      return listPage(request, reply, { errors: { expires: 'That date does not exist.' }, values: form.value }, 400);
    try {
      const key = await deps.keys.createKey({
        org: orgSlug(request),
        name: form.value.name,
        scopes: form.value.scopes as Scope[],
        expiresAt,
        actor: actorOf(request.viewer!),
      });
      return secretPage(request, reply, key, 'created');
    } catch (error) {
      return listPage(request, reply, { errors: serviceErrors(error, 'name'), values: form.value }, 400);
    }
  });

  org.post('/keys/rotate', { config: { permission: 'keys' } }, async (request, reply) => {
    const form = parseForm(RotateForm, request.body);
    if (!form.ok)
      return listPage(request, reply, { errors: { [`rotate:${String(form.values.name)}`]: form.errors.grace ?? 'Choose a key.' } }, 400);
    const graceMs = form.value.grace ? parseDuration(form.value.grace)! : 0;
    const key = await deps.keys.rotateKey({ org: orgSlug(request), name: form.value.name, graceMs, actor: actorOf(request.viewer!) });
    return secretPage(request, reply, key, 'rotated');
  });

  org.post('/keys/revoke', { config: { permission: 'keys' } }, async (request, reply) => {
    const form = parseForm(KeyNameForm, request.body);
    if (!form.ok) return listPage(request, reply, { errors: { _form: 'Choose a key to revoke.' } }, 400);
    await deps.keys.revokeKey({ org: orgSlug(request), name: form.value.name, actor: actorOf(request.viewer!) });
    return redirect(request, reply, `/console/o/${encodeURIComponent(orgSlug(request))}/keys?done=revoked`);
  });
}
