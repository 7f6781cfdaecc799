import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorBodySchema } from '../errors.js';

// Building blocks every operation's schema uses, so the OpenAPI document describes the same
// errors and headers the hooks produce.

// Every answer carries the request's id (the onRequest hook in app.ts sets it first thing).
const requestIdHeader = {
  'X-Request-Id': {
    type: 'string',
    format: 'uuid',
    description: "This request's identifier, also the `request_id` of an error body; quote it when asking for support",
  },
};

const rateLimitHeaders = {
  'X-RateLimit-Limit': { type: 'integer', description: 'Requests allowed per key in any rolling 60 seconds' },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current window' },
};

/** A success response: the body schema plus the rate-limit headers every authenticated answer carries. */
export function success<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description, headers: { ...requestIdHeader, ...rateLimitHeaders } } as T;
}

/** An error response: the common error body, described for this status. */
export function errorResponse(description: string, headers?: Record<string, unknown>): TSchema {
  return Type.Ref(ErrorBodySchema, { description, headers: { ...requestIdHeader, ...headers } });
}

/** The answers every API operation can give, whatever its body. */
export const authErrors = {
  401: errorResponse('Key missing, malformed, wrong, revoked or expired (one body for all)'),
  403: errorResponse('Valid key without the scope this operation requires', rateLimitHeaders),
  405: errorResponse('Method not allowed on this path; the Allow header lists the allowed one', {
    Allow: { type: 'string' },
  }),
  429: errorResponse('Rate limit exceeded (per key, or failed authentications per client address). Refused requests use no quota.', {
    ...rateLimitHeaders,
    'Retry-After': { type: 'integer', description: 'Whole seconds until a slot frees (≥ 1)' },
  }),
  503: errorResponse(
    'The database (or another backing service) is unreachable for now; nothing was stored. Retry after the Retry-After seconds (code service_unavailable)',
    { 'Retry-After': { type: 'integer', description: 'Seconds to wait before retrying' } },
  ),
};

export const bodyErrors = {
  400: errorResponse('The body is not valid JSON, is not UTF-8 text, or uses prototype-poisoning keys (code invalid_json)'),
  413: errorResponse('The body is larger than this operation accepts (code payload_too_large)'),
  415: errorResponse('The body is not sent as application/json (code unsupported_media_type)'),
};

export const apiSecurity: Array<Record<string, string[]>> = [{ ApiKeyHeader: [] }, { BearerAuth: [] }];
