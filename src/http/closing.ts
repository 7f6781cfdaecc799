import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.js';

/**
 * While the server shuts down, a request that still arrives (pipelined behind one in flight, or
 * on a keep-alive connection not yet closed) gets the contract's 503 body with Retry-After and
 * `Connection: close`, not Fastify's own `return503OnClosing` body. Registered first among the
 * onRequest hooks, so nothing (authentication, the database) runs for it.
 */
export function registerClosingAnswer(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    sendError(reply, 'service_unavailable', 'the server is shutting down; retry shortly');
  });
}
