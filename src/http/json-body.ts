import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { BODY_NOT_UTF8, sendError } from './errors.js';
import { addRouteHook } from './route-hooks.js';

/**
 * API bodies are JSON only. Fastify's built-in text/plain parser is removed, so any other
 * media type is a 415; a POST operation that sends no Content-Type at all is a 415 too
 * (rather than a confusing 422 about a missing body).
 */
export function registerJsonOnly(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  // JSON exchanged between systems is UTF-8 (RFC 8259). Fastify decodes the body as UTF-8,
  // putting U+FFFD in place of bytes that are not: a description written in Latin-1 would be
  // stored as something other than what was sent. Such a body is refused (400 invalid_json);
  // the rest is Fastify's own parser, with its answers to poisoned and empty bodies.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(Object.assign(new Error('the body is not UTF-8 text'), { statusCode: 400, code: BODY_NOT_UTF8 }));
    parseJson(request, bytes.toString('utf8'), done);
  });
  const requireContentType = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request.headers['content-type'] !== undefined) return done();
    sendError(reply, 'unsupported_media_type', 'the body must be sent with Content-Type: application/json');
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.config?.scope && methods.includes('POST')) addRouteHook(route, 'preValidation', requireContentType);
  });
}
