import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { ConsoleDeps } from './context.js';
import { type FieldErrors, parseForm } from './forms.js';
import { render } from './render.js';
import { DEVICE_COOKIE, redirect } from './session.js';

// The signed-in person's own account: change the password. The new password passes the same
// checks as at the invitation; every other session of the person ends, this one stays.

const ChangePasswordForm = Type.Object({
  current: Type.String({ minLength: 1, maxLength: 200, message: 'Enter your current password.', trim: false }),
  password: Type.String({ minLength: 1, maxLength: 200, message: 'Choose a new password.', trim: false }),
  confirm: Type.String({ maxLength: 200, trim: false }),
});

export function registerAccountPages(signedIn: FastifyInstance, deps: ConsoleDeps): void {
  const page = (request: FastifyRequest, reply: FastifyReply, data: { errors?: FieldErrors; changed?: boolean } = {}, status = 200) =>
    render(request, reply, 'account', { title: 'Your account', changed: false, ...data }, status);

  signedIn.get('/account', { config: { permission: 'signed-in' } }, (request, reply) =>
    page(request, reply, { changed: (request.query as { changed?: string }).changed === '1' }),
  );

  signedIn.post('/account/password', { config: { permission: 'signed-in' } }, async (request, reply) => {
    const form = parseForm(ChangePasswordForm, request.body);
    if (!form.ok) return page(request, reply, { errors: form.errors }, 400);
    if (form.value.password !== form.value.confirm)
      return page(request, reply, { errors: { confirm: 'The two new passwords differ.' } }, 400);
    const viewer = request.viewer!;
    try {
      await deps.users.changePassword(viewer.user, viewer.sessionDigest, form.value.current, form.value.password, {
        address: request.ip,
        device: request.cookies[DEVICE_COOKIE],
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'validation_failed') {
        const field = error.details?.[0]?.path === 'current' ? 'current' : 'password';
        return page(
          request,
          reply,
          { errors: { [field]: error.message } },
          field === 'current' && /Too many/.test(error.message) ? 429 : 400,
        );
      }
      throw error;
    }
    return redirect(request, reply, '/console/account?changed=1');
  });
}
