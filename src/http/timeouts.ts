import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { rawErrorResponse } from './malformed-requests.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How long this operation waits for the whole request; REQUEST_TIMEOUT_MS when unset. */
    requestTimeoutMs?: number;
  }
}

type TimeoutConfig = Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'sbomRequestTimeoutMs'>;

/**
 * Options for Fastify's HTTP server. Node enforces the headers deadline and, as a backstop for
 * every connection, the longest request deadline; it checks them every `connectionsCheckingInterval`
 * (30 s by default, which let slow headers live 45 s), so that runs at a quarter of the shortest.
 */
export function serverTimeoutOptions(config: TimeoutConfig) {
  const longest = Math.max(config.requestTimeoutMs, config.sbomRequestTimeoutMs, config.headersTimeoutMs);
  return {
    requestTimeout: longest,
    http: {
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4))),
    },
  };
}

/**
 * Each request must arrive whole (headers and body) within its operation's deadline: a body
 * shorter than its Content-Length, or a chunked body that never ends, gets 408 and the
 * connection is closed. Node's own requestTimeout is server-wide, so the shorter deadline of
 * ordinary operations is kept here; SBOM ingest sets a longer one (large bodies, slow pipelines).
 */
export function registerRequestDeadlines(app: FastifyInstance, defaultMs: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    // An injected request (app.inject, in tests) arrives whole and on no connection: nothing to
    // wait for or close (its stand-in socket has no end(); a test slower than the deadline threw).
    if (raw.complete || !(raw.socket instanceof Socket)) return done();
    const ms = request.routeOptions.config?.requestTimeoutMs ?? defaultMs;
    const timer = setTimeout(() => {
      const socket = raw.socket;
      if (raw.complete || reply.sent || socket.destroyed) return;
      request.log.info({ timeoutMs: ms }, 'request not received in time; closing the connection');
      socket.end(rawErrorResponse('request_timeout', `the request was not received within ${ms} ms`), () => socket.destroy());
    }, ms);
    timer.unref();
    // Once answered, Node closes a connection whose request body was not read to its end.
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}

/**
 * A request body must keep arriving: once the body is being read, a pause of `idleMs` with no
 * byte received gets 408 and the connection is closed, long before the operation's deadline
 * (10 minutes for SBOM ingest). Starts when the body is about to be read (preParsing), so time
 * the server spends before reading (authentication) never counts against the client. Counts the
 * socket's bytes (also read while Node's parser consumes the socket directly, without 'data'
 * events), so it neither reads the body nor touches the socket's own timeout (keep-alive).
 */
export function registerBodyIdleTimeout(app: FastifyInstance, idleMs: number): void {
  const every = Math.max(25, Math.min(1000, Math.floor(idleMs / 4)));
  app.addHook('preParsing', (request, reply, payload, done) => {
    const raw = request.raw;
    if (raw.complete) return done(null, payload);
    const socket = raw.socket;
    let bytes = socket.bytesRead;
    let lastArrival = performance.now();
    const check = setInterval(() => {
      if (raw.complete || reply.sent || socket.destroyed) return clearInterval(check);
      const now = performance.now();
      if (socket.bytesRead !== bytes) {
        bytes = socket.bytesRead;
        lastArrival = now;
        return;
      }
      if (now - lastArrival < idleMs) return;
      clearInterval(check);
      request.log.info({ idleMs }, 'request body stalled; closing the connection');
      socket.end(rawErrorResponse('request_timeout', `no part of the request body arrived for ${idleMs} ms`), () => socket.destroy());
    }, every);
    check.unref();
    // An 'end' listener does not start the body flowing: the content parser still reads it all.
    raw.once('end', () => clearInterval(check));
    reply.raw.once('close', () => clearInterval(check));
    done(null, payload);
  });
}
