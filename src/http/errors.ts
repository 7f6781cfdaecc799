import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUnavailable } from '../db/index.js';
import { AppError, ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorDetail } from '../errors.js';

/** The code of the error that a JSON body which is not UTF-8 raises (json-body.ts). */
export const BODY_NOT_UTF8 = 'ERR_BODY_NOT_UTF8';

/** What a 503 asks clients to wait before retrying: outages are detected within seconds. */
export const RETRY_AFTER_SECONDS = 2;

export function sendError(reply: FastifyReply, code: ErrorCode, message: string, details?: ErrorDetail[]): FastifyReply {
  const body: ErrorBody = { errore: message, code, request_id: String(reply.request.id) };
  if (code === 'service_unavailable' && !reply.hasHeader('retry-after')) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  if (details) body.details = details;
  // Set here too: some errors (a malformed URL) are answered before any onRequest hook runs.
  reply.header('x-request-id', String(reply.request.id));
  return reply.code(ERROR_STATUS[code]).type('application/json; charset=utf-8').send(body);
}

/** ajv's errors → JSON pointers into the body, as the 422's `details`. */
function validationDetails(error: FastifyError): ErrorDetail[] {
  return (error.validation ?? []).map((v) => {
    const params = v.params as Record<string, unknown>;
    const missing = typeof params.missingProperty === 'string' ? `/${params.missingProperty}` : '';
    return { path: (v.instancePath || '') + missing || '/', message: v.message ?? 'is invalid' };
  });
}

/** Which part of the request failed its schema, as the 422's message says it. */
const VALIDATED_PART: Record<string, string> = {
  body: 'the request body is invalid',
  params: 'the path parameters are invalid',
  querystring: 'the query string is invalid',
  headers: 'the request headers are invalid',
};

function classify(error: FastifyError, request: FastifyRequest): { code: ErrorCode; message: string; details?: ErrorDetail[] } {
  if (error instanceof AppError) return { code: error.code, message: error.message, details: error.details };
  if (error.validation) {
    const message = VALIDATED_PART[error.validationContext ?? 'body'] ?? 'the request is invalid';
    return { code: 'validation_failed', message, details: validationDetails(error) };
  }
  // A static asset path that resolves outside its folder (../ climbing): nothing there.
  if (error.statusCode === 403 || error.statusCode === 404)
    return { code: 'not_found', message: `no route for ${request.method} ${request.url.split('?')[0]}` };
  // Fastify's body errors carry their status: 413 (FST_ERR_CTP_BODY_TOO_LARGE), 415
  // (FST_ERR_CTP_INVALID_MEDIA_TYPE), 400 for empty, unparseable or poisoned JSON.
  if (error.statusCode === 413) return { code: 'payload_too_large', message: 'the body is larger than this operation accepts' };
  if (error.statusCode === 415)
    return { code: 'unsupported_media_type', message: 'the body must be sent with Content-Type: application/json' };
  if (error.code === BODY_NOT_UTF8)
    return { code: 'invalid_json', message: 'the body is not UTF-8 text (JSON exchanged between systems is UTF-8, RFC 8259)' };
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return { code: 'invalid_json', message: 'the body is empty; a JSON object is expected' };
  if (error.statusCode === 400 && (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP'))) {
    return { code: 'invalid_json', message: 'the body is not valid JSON' };
  }
  if (error.statusCode === 400) return { code: 'invalid_json', message: 'the request could not be read' };
  if (isUnavailable(error)) return { code: 'service_unavailable', message: 'the service is temporarily unavailable; retry later' };
  return { code: 'internal_error', message: 'internal error' };
}

/**
 * One place maps every error to the JSON error body; no stack trace ever leaves the process.
 * `onUnavailable` hears each database failure; it logs the cause once per outage, so the
 * requests that fail during it log at debug level only.
 */
export function registerErrorHandling(app: FastifyInstance, options: { onUnavailable?: (error: unknown) => void } = {}): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { code, message, details } = classify(error, request);
    if (code === 'internal_error') request.log.error({ err: error }, 'request failed');
    else if (code === 'service_unavailable' && !(error instanceof AppError)) {
      options.onUnavailable?.(error);
      request.log.debug({ err: error }, 'request failed: database unavailable');
    } else request.log.info({ code, status: ERROR_STATUS[code] }, message);
    return sendError(reply, code, message, details);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, 'not_found', `no route for ${request.method} ${request.url.split('?')[0]}`));
}
