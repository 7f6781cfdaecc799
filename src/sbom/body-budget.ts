import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../http/errors.js';

/** What a client is told to wait before retrying: a large ingest takes a few seconds. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Bounds the SBOM bodies held in memory at once. Each request reserves its declared size (a
 * chunked body, whose size is unknown, reserves the maximum) before its body is read, and
 * gives it back when its response is done or its connection closes; a request that does not
 * fit gets 503 with Retry-After and its body is never read. One body of the maximum size
 * always fits when nothing else is held, so no valid upload is refused forever.
 * Runs as the route's preParsing hook: after authentication, before the body is read.
 */
export function createBodyBudget(options: { budgetBytes: number; maxBodyBytes: number }) {
  const budget = Math.max(options.budgetBytes, options.maxBodyBytes);
  let held = 0;

  return {
    get heldBytes(): number {
      return held;
    },
    async reserve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const declared = Number(request.headers['content-length']);
      // Over the maximum: reserve nothing, the body limit answers 413 without holding it.
      const size = Number.isFinite(declared) && declared >= 0 ? declared : options.maxBodyBytes;
      if (size > options.maxBodyBytes) return;
      if (held + size > budget) {
        reply.header('retry-after', String(RETRY_AFTER_SECONDS));
        request.log.warn({ heldBytes: held, size }, 'SBOM upload refused: too many large bodies in memory');
        sendError(reply, 'service_unavailable', 'too many SBOM uploads are being processed; retry later');
        return;
      }
      held += size;
      let released = false;
      reply.raw.once('close', () => {
        if (released) return;
        released = true;
        held -= size;
      });
    },
  };
}
