import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { sendError } from './errors.js';
import { addRouteHook } from './route-hooks.js';

/**
 * API bodies are JSON only. Fastify's built-in text/plain parser is removed, so any other
 * media type is a 415; a POST operation that sends no Content-Type at all is a 415 too
 * (rather than a confusing 422 about a missing body).
 */
export function registerJsonOnly(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  const requireContentType = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request.headers['content-type'] !== undefined) return done();
    sendError(reply, 'unsupported_media_type', 'the body must be sent with Content-Type: application/json');
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.config?.scope && methods.includes('POST')) addRouteHook(route, 'preValidation', requireContentType);
  });
}
