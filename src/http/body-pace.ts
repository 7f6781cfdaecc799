import type { FastifyReply, FastifyRequest } from 'fastify';
import { rawErrorResponse } from './malformed-requests.js';

// A body must arrive at a living pace, not merely without long pauses: one byte a second never
// trips BODY_IDLE_TIMEOUT_MS, and held an anonymous report (and its connection) for the form's
// whole 5-minute deadline. Once the body is being read, each `windowMs` must bring at least
// `minBytesPerSecond` on average; a body that does not is answered 408 and its connection
// closed. The first window is the grace period: a body that arrives whole within it is never
// judged. Measured on the socket (as the idle check is) over the time that actually passed, so
// a busy event loop that checks late only lengthens the window.

export interface BodyPace {
  /** The grace period, and each window after it, in milliseconds. */
  windowMs: number;
  /** The least a window must bring, in bytes per second on average. */
  minBytesPerSecond: number;
}

/** Starts judging the body's pace from now (call it as the body begins to be read); stops when it has arrived or the reply is done. */
export function watchBodyPace(request: FastifyRequest, reply: FastifyReply, pace: BodyPace): void {
  const raw = request.raw;
  if (raw.complete) return;
  const socket = raw.socket;
  let bytes = socket.bytesRead;
  let since = performance.now();
  const check = setInterval(() => {
    if (raw.complete || reply.sent || socket.destroyed) return clearInterval(check);
    const now = performance.now();
    const arrived = socket.bytesRead - bytes;
    const seconds = (now - since) / 1000;
    bytes = socket.bytesRead;
    since = now;
    if (arrived >= pace.minBytesPerSecond * seconds) return;
    clearInterval(check);
    const rate = Math.round(arrived / seconds);
    request.log.info({ bytesPerSecond: rate, minBytesPerSecond: pace.minBytesPerSecond }, 'request body too slow; closing the connection');
    socket.end(
      rawErrorResponse(
        'request_timeout',
        `the request body arrived at ${rate} bytes a second, under the ${pace.minBytesPerSecond} this operation needs`,
      ),
      () => socket.destroy(),
    );
  }, pace.windowMs);
  check.unref();
  raw.once('end', () => clearInterval(check));
  reply.raw.once('close', () => clearInterval(check));
}
