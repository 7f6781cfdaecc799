import { METHODS } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.js';

/**
 * Teaches the router every method Node's parser accepts (WebDAV's PROPFIND, SEARCH, …), so that
 * on an API path they answer 405 like any other, not 404. Their bodies are never read. CONNECT
 * never reaches a route (see malformed-requests.ts). Call before any route or 404 handler.
 */
export function routeEveryMethod(app: FastifyInstance): void {
  const known = new Set(app.supportedMethods);
  for (const method of METHODS) if (method !== 'CONNECT' && !known.has(method)) app.addHttpMethod(method);
}

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
    for (const m of methods) set.add(m.toUpperCase());
    allowed.set(route.url, set);
  });
  return {
    registerMethodNotAllowed() {
      for (const [url, methods] of allowed) {
        const allow = [...methods].join(', ');
        app.route({
          method: app.supportedMethods.filter((m) => !methods.has(m)),
          url,
          schema: { hide: true },
          // Answered before the body is parsed (after the host check of the short forms): a
          // body, well-formed or not, changes nothing.
          preParsing: (request, reply, _payload, _done) => {
            reply.header('allow', allow);
            sendError(reply, 'method_not_allowed', `${request.method} is not allowed here; use ${allow}`);
          },
          handler: () => undefined,
        });
      }
    },
  };
}
