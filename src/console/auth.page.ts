import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { AppError } from '../errors.js';
import { totpUri } from '../users/totp.js';
import type { ConsoleDeps } from './context.js';
import { parseForm, serviceErrors } from './forms.js';
import { render } from './render.js';
import { clearSessionCookie, DEVICE_COOKIE, redirect, setDeviceCookie, setSessionCookie, SESSION_COOKIE } from './session.js';

// Sign-in, sign-out, invitation acceptance and authenticator enrolment: the pages reachable
// without a full session.

const SignInForm = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254, message: 'Enter your e-mail address.' }),
  password: Type.String({ minLength: 1, maxLength: 200, message: 'Enter your password.', trim: false }),
  code: Type.String({ maxLength: 20, message: 'Enter the 6-digit code from your authenticator app, or a recovery code.' }),
  next: Type.Optional(Type.String({ maxLength: 500 })),
});

/** A new password, twice: the invitation's form, and the first-run set-up's. */
export const PasswordForm = Type.Object({
  password: Type.String({ minLength: 1, maxLength: 200, message: 'Choose a password.', trim: false }),
  confirm: Type.String({ maxLength: 200, trim: false }),
});

const CodeForm = Type.Object({
  code: Type.String({ pattern: '^\\s*\\d{3}\\s?\\d{3}\\s*$', message: 'Enter the 6-digit code your authenticator app shows.' }),
});

/** Only paths inside the console: a sign-in link cannot send anyone elsewhere. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/console(\/[^/\\]|$|\?)/.test(next) && !next.includes('//') ? next : '/console';
}

export function registerAuthPages(scope: FastifyInstance, deps: ConsoleDeps): void {
  const { users } = deps;

  scope.get('/sign-in', { config: { permission: 'public' } }, (request, reply) => {
    if (request.viewer?.stage === 'full') return reply.redirect('/console', 303);
    return render(request, reply, 'sign-in', { values: { next: safeNext((request.query as { next?: string }).next) } });
  });

  scope.post('/sign-in', { config: { permission: 'public' } }, async (request, reply) => {
    const form = parseForm(SignInForm, request.body);
    if (!form.ok) return render(request, reply, 'sign-in', { errors: form.errors, values: form.values }, 400);
    const result = await users.signIn({ ...form.value, address: request.ip, device: request.cookies[DEVICE_COOKIE] });
    if ('error' in result) {
      const status = result.error.startsWith('Too many') ? 429 : 401;
      return render(
        request,
        reply,
        'sign-in',
        { errors: { _form: result.error }, values: { email: form.value.email, next: form.value.next } },
        status,
      );
    }
    setSessionCookie(reply, result.token);
    reply.renewCsrf();
    if (result.device) setDeviceCookie(reply, result.device);
    return redirect(request, reply, result.stage === 'enrol' ? '/console/enrol' : safeNext(form.value.next));
  });

  scope.post('/sign-out', { config: { permission: 'public' } }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await users.endSession(token);
    clearSessionCookie(reply);
    reply.renewCsrf();
    return redirect(request, reply, '/console/sign-in');
  });

  const invitationOf = async (request: FastifyRequest) => users.invitation((request.params as { token: string }).token);
  /** Who is signed in (fully), for the invitation page; the page never says whether the address has an account. */
  const signedInAs = (request: FastifyRequest) => (request.viewer?.stage === 'full' ? request.viewer.user.email : null);

  scope.get('/invite/:token', { config: { permission: 'public' } }, async (request, reply) => {
    const invitation = await invitationOf(request);
    return render(request, reply, 'invite', { invitation, signedInAs: signedInAs(request), path: request.url });
  });

  scope.post('/invite/:token', { config: { permission: 'public' } }, async (request, reply) => {
    const token = (request.params as { token: string }).token;
    const invitation = await invitationOf(request);
    if (signedInAs(request)) {
      // Refused (403) unless the invitation is the signed-in person's.
      const org = await users.acceptAsUser(token, request.viewer!.user);
      return redirect(request, reply, `/console/o/${encodeURIComponent(org)}/today`);
    }
    const form = parseForm(PasswordForm, request.body);
    const rerender = (errors: Record<string, string>) =>
      render(request, reply, 'invite', { invitation, signedInAs: null, errors, path: request.url }, 400);
    if (!form.ok) return rerender(form.errors);
    if (form.value.password !== form.value.confirm) return rerender({ confirm: 'The two passwords differ.' });
    try {
      const accepted = await users.acceptAsNewUser(token, form.value.password);
      setSessionCookie(reply, accepted.token);
      reply.renewCsrf();
    } catch (error) {
      if (error instanceof AppError && (error.code === 'validation_failed' || error.code === 'conflict'))
        return rerender({ password: error.message });
      return rerender(serviceErrors(error));
    }
    return redirect(request, reply, '/console/enrol');
  });

  async function enrolmentPage(request: FastifyRequest) {
    const viewer = request.viewer;
    if (viewer?.stage !== 'enrol') return null;
    const user = await users.ensureEnrolmentSecret(viewer.user);
    viewer.user = user;
    const secret = users.enrolmentSecret(user);
    const qr = await QRCode.toDataURL(totpUri(secret, user.email), { margin: 2, width: 220 });
    return { secret, qr, email: user.email };
  }

  scope.get('/enrol', { config: { permission: 'public' } }, async (request, reply) => {
    const page = await enrolmentPage(request);
    if (!page) return reply.redirect(request.viewer ? '/console' : '/console/sign-in', 303);
    return render(request, reply, 'enrol', page);
  });

  scope.post('/enrol', { config: { permission: 'public' } }, async (request, reply) => {
    const page = await enrolmentPage(request);
    if (!page) return redirect(request, reply, request.viewer ? '/console' : '/console/sign-in');
    const form = parseForm(CodeForm, request.body);
    if (!form.ok) return render(request, reply, 'enrol', { ...page, errors: form.errors }, 400);
    const enrolled = await users.completeEnrolment(request.viewer!.user, request.viewer!.sessionDigest, form.value.code);
    if (!enrolled)
      return render(
        request,
        reply,
        'enrol',
        { ...page, errors: { code: 'That code is not the current one. Check the time on your phone and try the next code.' } },
        400,
      );
    // Enrolment ends in a sign-in: a new session (and CSRF secret), and this browser is one of
    // the person's devices from now on.
    setSessionCookie(reply, enrolled.token);
    reply.renewCsrf();
    const viewer = request.viewer!;
    viewer.sessionDigest = enrolled.idDigest;
    viewer.stage = 'full';
    setDeviceCookie(reply, await users.rememberDevice(viewer.user));
    // Shown once, in this response only; no-store keeps it out of the browser's cache.
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'recovery-codes', { codes: enrolled.codes, viewer: null });
  });
}
