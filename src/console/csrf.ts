import csrf from '@fastify/csrf-protection';
import type { CookieSerializeOptions } from '@fastify/cookie';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.js';

// CSRF protection (@fastify/csrf-protection): a secret in a cookie, and in every form a token
// made from it and from the session (its digest as the token's user info, under an HMAC key
// from CONSOLE_SECRET). A secret and token an attacker holds, their own or planted from a
// sibling domain, are worthless in another person's session; the secret is renewed whenever a
// session begins or ends. Where the console is served over HTTPS (PUBLIC_URL https://…) the
// cookie is __Host-: for this host alone, set by no other.

declare module 'fastify' {
  interface FastifyReply {
    /** A new CSRF secret, in effect for the rest of this response too (its forms' tokens). */
    renewCsrf(): void;
  }
  interface FastifyContextConfig {
    /** A multipart route whose CSRF token is the first part of its body, checked by its handler. */
    csrfInBody?: boolean;
  }
}

export function csrfCookie(config: Pick<Config, 'publicUrl'>): { name: string; options: CookieSerializeOptions } {
  const options = { httpOnly: true, secure: true, sameSite: 'lax' } as const;
  return config.publicUrl?.startsWith('https:')
    ? { name: '__Host-cra_csrf', options: { ...options, path: '/' } }
    : { name: 'cra_csrf', options: { ...options, path: '/console' } };
}

/** What a token is bound to: the session's digest, or "anonymous" before sign-in (never empty: @fastify/csrf refuses that). */
export const csrfUserInfo = (request: { viewer: { sessionDigest: string } | null }) => request.viewer?.sessionDigest ?? 'anonymous';

export async function registerCsrf(scope: FastifyInstance, config: Config, hmacKey: Buffer): Promise<void> {
  const cookie = csrfCookie(config);
  await scope.register(csrf, {
    cookieKey: cookie.name,
    cookieOpts: cookie.options,
    getUserInfo: csrfUserInfo,
    csrfOpts: { hmacKey },
  });
  scope.decorateReply('renewCsrf', function (this: FastifyReply) {
    const secret = randomBytes(18).toString('base64url');
    this.setCookie(cookie.name, secret, cookie.options);
    this.request.cookies[cookie.name] = secret;
  });
  // Every state-changing request carries the form's token (or htmx's X-CSRF-Token header).
  // The upload form's multipart body is not read yet: its handler checks the token, the
  // form's first part, before it reads the file.
  scope.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST') return done();
    if (request.routeOptions.config.csrfInBody && request.isMultipart?.()) return done();
    return scope.csrfProtection(request, reply, done);
  });
}
