import type { FastifyInstance, HTTPMethods } from 'fastify';
import { sendError } from './errors.js';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Remembers the methods of every API operation's path, then answers every other method on
 * that path with 405 and an Allow header. These routes carry no scope, so they answer before
 * authentication.
 */
export function trackOperations(app: FastifyInstance): { registerMethodNotAllowed(): void } {
  const allowed = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (!route.config?.scope) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = allowed.get(route.url) ?? new Set<string>();
    methods.forEach((m) => set.add(m.toUpperCase()));
    allowed.set(route.url, set);
  });
  return {
    registerMethodNotAllowed() {
      for (const [url, methods] of allowed) {
        const allow = [...methods].join(', ');
        app.route({
          method: METHODS.filter((m) => !methods.has(m)),
          url,
          schema: { hide: true },
          handler: (request, reply) => {
            reply.header('allow', allow);
            return sendError(reply, 'method_not_allowed', `${request.method} is not allowed here; use ${allow}`);
          },
        });
      }
    },
  };
}
