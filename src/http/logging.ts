import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pretty from 'pino-pretty';
import type { Config, LogFormat } from '../config.js';

// The server's log: JSON lines for machines; readable lines (pino-pretty, the Fastify convention)
// when stdout is a terminal or LOG_FORMAT=pretty says so. Whatever the format, no secret reaches
// it: key headers are redacted, and so are the tokens of one-time links in request URLs, whichever
// way their paths are spelt.

/** Key headers never reach a log line, whatever a serializer is later taught to include. */
export const REDACTED_PATHS = [
  'req.headers["x-cra-api-key"]',
  'req.headers.authorization',
  'headers["x-cra-api-key"]',
  'headers.authorization',
];

// An invitation or set-up link names its token in the path; a sign-in page that leads back to an
// invitation carries that path in ?next=, URL-encoded (a separator as %2F, or %252F once more).
const SEPARATOR = '(?:/|%(?:25)*2F)';
const ONE_TIME_LINK = new RegExp(`(${SEPARATOR}console${SEPARATOR}(?:invite|setup)${SEPARATOR})[^/?#&%]+`, 'gi');
// A reporter's follow-up link (disclosure.md) is a capability URL: its token never reaches a log.
const FOLLOW_UP_LINK = new RegExp(`(${SEPARATOR}disclose${SEPARATOR}[^/?#&%]+${SEPARATOR}follow${SEPARATOR})[^/?#&%]+`, 'gi');

/** A path parameter of this name is the token of a one-time or follow-up link, on every route that has one. */
const SECRET_PARAMS: ReadonlySet<string> = new Set(['token']);

/**
 * Letters, digits and `-._~` written as %XX (or %25XX, %2525XX…) decoded: a router reads
 * `/console/%69nvite/T` as the invitation page, and a `?next=` holding `%2569nvite` leads there
 * once decoded, so the patterns are matched against what the link means, not how it is spelt.
 */
function unescapeUnreserved(url: string): string {
  return url.replace(/%(?:25)*([0-9A-Fa-f]{2})/g, (escaped, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : escaped;
  });
}

/**
 * The URL with the token of every one-time console link and follow-up link replaced by
 * `[redacted]`, however its letters are escaped; a URL that holds no such link is returned as it
 * came, one that does in its unescaped spelling.
 */
export function redactUrl(url: string): string {
  const plain = unescapeUnreserved(url);
  const redacted = plain.replace(ONE_TIME_LINK, '$1[redacted]').replace(FOLLOW_UP_LINK, '$1[redacted]');
  return redacted === plain ? url : redacted;
}

/**
 * The URL a request is logged under. On a route with a secret parameter, the path the router
 * matched: the route's pattern with the decoded parameters in it and each secret one
 * `[redacted]`, so that no spelling of the path that reaches the page shows its token; then the
 * query string, redacted. Any other request: its URL, redacted.
 */
export function loggedUrl(request: Pick<FastifyRequest, 'url' | 'params' | 'routeOptions'>): string {
  const pattern = request.routeOptions?.url;
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (!pattern || !Object.keys(params).some((name) => SECRET_PARAMS.has(name))) return redactUrl(request.url);
  const path = pattern.replace(/:(\w+)|\*/g, (_match, name: string | undefined) => {
    const key = name ?? '*';
    return SECRET_PARAMS.has(key) ? '[redacted]' : encodeURIComponent(String(params[key] ?? ''));
  });
  const query = request.url.indexOf('?');
  return query < 0 ? path : path + redactUrl(request.url.slice(query));
}

/** The format in effect: LOG_FORMAT, else readable on a terminal and JSON anywhere else. */
export function logFormatOf(config: Pick<Config, 'logFormat'>, stdoutIsTty = process.stdout.isTTY === true): LogFormat {
  return config.logFormat ?? (stdoutIsTty ? 'pretty' : 'json');
}

/** Fastify's own request serializer, with the one-time tokens taken out of the URL. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggedUrl(request),
    version: request.headers?.['accept-version'] as string | undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * Fastify's logger options. `stream` replaces stdout (tests read it); without one, a readable
 * format writes through pino-pretty, synchronously, so the last lines before an exit are not lost.
 */
export function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>, stream?: NodeJS.WritableStream) {
  const destination =
    stream ??
    (logFormatOf(config) === 'pretty'
      ? pretty({ colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', sync: true })
      : undefined);
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { req: serializeRequest },
    ...(destination ? { stream: destination } : {}),
  };
}

/**
 * One line per request, when it is answered: method, URL (redacted), status and time
 * (`request completed`). Fastify's own second line as each request arrives (`incoming
 * request`) is at `debug`: at `info` the two lines cost a third of a cached read's throughput
 * (bench: GET products 3.6k against 5.7k req/s without them), and the second says nothing the
 * first does not, except for a request that never completes, which `debug` still shows.
 */
export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
