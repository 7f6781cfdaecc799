import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addRouteHook } from './route-hooks.js';
import type { Authenticate } from '../keys/authenticate.js';
import { sendError } from './errors.js';
import type { RateLimitStore } from './rate-limit/store.js';

export interface AuthOptions {
  authenticate: Authenticate;
  store: RateLimitStore;
  perKeyPerMinute: number;
  failuresPerAddressPerMinute: number;
  now?: () => number;
}

const WINDOW_MS = 60_000;
const UNAUTHORIZED = 'a valid API key is required (X-CRA-API-Key or Authorization: Bearer)';

/**
 * The key presented by the request: X-CRA-API-Key or Authorization: Bearer (scheme in any
 * case). Returns null when absent, malformed, or when both headers carry different keys.
 */
export function presentedKey(request: FastifyRequest): string | null {
  const headerKey = request.headers['x-cra-api-key'];
  const authorization = request.headers.authorization;
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return null;
    bearer = match[1];
  }
  if (Array.isArray(headerKey)) return null;
  const direct = headerKey?.trim();
  if (direct !== undefined && bearer !== undefined && direct !== bearer) return null;
  return direct || bearer || null;
}

/**
 * For every API operation (routes with `config.scope`, and only those): authenticate, then count the request
 * against the key's sliding window, then check the scope. Failed authentications count
 * against the client address; an address over its budget gets 429 until the window frees.
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const now = options.now ?? Date.now;
  // Addresses over their failure budget, with the time they may try again. Checked before any
  // I/O so a flood of bad keys costs nothing; filled from the (possibly shared) store.
  const blockedUntil = new Map<string, number>();

  function tooManyFailures(reply: FastifyReply, retryAfter: number) {
    reply.header('retry-after', String(retryAfter));
    return sendError(reply, 'rate_limited', 'too many failed authentications from this address; retry later');
  }

  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    if (route.config?.scope) addRouteHook(route, 'onRequest', authorise);
  });
  async function authorise(request: FastifyRequest, reply: FastifyReply) {
    const scope = request.routeOptions.config.scope!;

    const address = request.ip;
    const blocked = blockedUntil.get(address);
    if (blocked !== undefined) {
      if (blocked > now()) return tooManyFailures(reply, Math.max(1, Math.ceil((blocked - now()) / 1000)));
      blockedUntil.delete(address);
    }

    const key = presentedKey(request);
    const principal = key === null ? null : await options.authenticate(key);
    if (!principal) {
      const failures = await options.store.consume(`authfail:${address}`, options.failuresPerAddressPerMinute, WINDOW_MS);
      if (!failures.allowed) {
        blockedUntil.set(address, now() + failures.retryAfterSeconds * 1000);
        return tooManyFailures(reply, failures.retryAfterSeconds);
      }
      return sendError(reply, 'unauthorized', UNAUTHORIZED);
    }
    request.principal = principal;

    const decision = await options.store.consume(`key:${principal.keyId}`, options.perKeyPerMinute, WINDOW_MS);
    reply.header('x-ratelimit-limit', String(decision.limit));
    reply.header('x-ratelimit-remaining', String(decision.remaining));
    if (!decision.allowed) {
      reply.header('retry-after', String(decision.retryAfterSeconds));
      return sendError(reply, 'rate_limited', `rate limit of ${decision.limit} requests per minute exceeded`);
    }
    if (!principal.scopes.has(scope)) {
      return sendError(reply, 'forbidden', `this key lacks the scope ${scope}`);
    }
  }
}
