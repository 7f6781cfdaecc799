import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.js';

/**
 * API bodies are JSON only. Fastify's built-in text/plain parser is removed, so any other
 * media type is a 415; a POST operation that sends no Content-Type at all is a 415 too
 * (rather than a confusing 422 about a missing body).
 */
export function registerJsonOnly(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  app.addHook('preValidation', async (request, reply) => {
    if (!request.routeOptions.config.scope || request.method !== 'POST') return;
    if (request.headers['content-type'] === undefined) {
      return sendError(reply, 'unsupported_media_type', 'the body must be sent with Content-Type: application/json');
    }
  });
}
