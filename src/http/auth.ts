import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addRouteHook } from './route-hooks.js';
import type { Authenticate } from '../keys/authenticate.js';
import { isWellFormedKey } from '../keys/key-format.js';
import { sendError } from './errors.js';
import type { RateLimitStore } from './rate-limit/store.js';

export interface AuthOptions {
  authenticate: Authenticate;
  store: RateLimitStore;
  perKeyPerMinute: number;
  failuresPerAddressPerMinute: number;
  now?: () => number;
  /** Addresses remembered as blocked at most (default 10 000); the oldest are forgotten beyond. */
  maxBlockedAddresses?: number;
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
 * against the client address; once over its budget, the address's further FAILING attempts get
 * 429 until the window frees, while a request with a valid key still passes (decisions §4: one
 * bad job behind a shared NAT must not lock out the rest). Returns a view for tests.
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): { blockedAddresses(): number } {
  const now = options.now ?? Date.now;
  const maxBlocked = options.maxBlockedAddresses ?? 10_000;
  // Addresses over their failure budget, with the time they may try again, filled from the
  // (possibly shared) store. A malformed key from a blocked address is refused before any I/O,
  // so a flood of garbage costs nothing; a well-formed one must be looked up (it may be valid).
  const blockedUntil = new Map<string, number>();

  function blockedFor(address: string): number | null {
    const until = blockedUntil.get(address);
    if (until === undefined) return null;
    if (until > now()) return Math.max(1, Math.ceil((until - now()) / 1000));
    blockedUntil.delete(address);
    return null;
  }

  /** Bounded: past the limit, expired entries go, then the oldest (the store still counts them). */
  function block(address: string, retryAfterSeconds: number) {
    blockedUntil.delete(address);
    blockedUntil.set(address, now() + retryAfterSeconds * 1000);
    if (blockedUntil.size <= maxBlocked) return;
    const at = now();
    for (const [a, until] of blockedUntil) if (until <= at) blockedUntil.delete(a);
    for (const a of blockedUntil.keys()) {
      if (blockedUntil.size <= maxBlocked) break;
      blockedUntil.delete(a);
    }
  }

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
    const key = presentedKey(request);
    const wellFormed = key !== null && isWellFormedKey(key);
    const blocked = blockedFor(address);
    if (blocked !== null && !wellFormed) return tooManyFailures(reply, blocked);

    const principal = wellFormed ? await options.authenticate(key) : null;
    if (!principal) {
      // Refused while blocked: not counted again, so the block ends when the window frees.
      if (blocked !== null) return tooManyFailures(reply, blocked);
      const failures = await options.store.consume(`authfail:${address}`, options.failuresPerAddressPerMinute, WINDOW_MS);
      if (!failures.allowed) {
        block(address, failures.retryAfterSeconds);
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
  return { blockedAddresses: () => blockedUntil.size };
}
