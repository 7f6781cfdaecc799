import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pretty from 'pino-pretty';
import type { Config, LogFormat } from '../config.js';

// The server's log: JSON lines for machines; readable lines (pino-pretty, the Fastify convention)
// when stdout is a terminal or LOG_FORMAT=pretty says so. Whatever the format, no secret reaches
// it: key headers are redacted, and so are the tokens of one-time links in request URLs.

/** Key headers never reach a log line, whatever a serializer is later taught to include. */
export const REDACTED_PATHS = [
  'req.headers["x-cra-api-key"]',
  'req.headers.authorization',
  'headers["x-cra-api-key"]',
  'headers.authorization',
];

// An invitation or set-up link names its token in the path; a sign-in page that leads back to an
// invitation carries that path in ?next=, URL-encoded.
const ONE_TIME_LINK = /((?:\/|%2F)console(?:\/|%2F)(?:invite|setup)(?:\/|%2F))[^/?#&%]+/gi;
// A reporter's follow-up link (disclosure.md) is a capability URL: its token never reaches a log.
const FOLLOW_UP_LINK = /((?:\/|%2F)disclose(?:\/|%2F)[^/?#&%]+(?:\/|%2F)follow(?:\/|%2F))[^/?#&%]+/gi;

/** The URL with the token of every one-time console link and follow-up link replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(ONE_TIME_LINK, '$1[redacted]').replace(FOLLOW_UP_LINK, '$1[redacted]');
}

/** The format in effect: LOG_FORMAT, else readable on a terminal and JSON anywhere else. */
export function logFormatOf(config: Pick<Config, 'logFormat'>, stdoutIsTty = process.stdout.isTTY === true): LogFormat {
  return config.logFormat ?? (stdoutIsTty ? 'pretty' : 'json');
}

/** Fastify's own request serializer, with the one-time tokens taken out of the URL. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
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
