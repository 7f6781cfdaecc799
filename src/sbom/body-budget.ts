import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../http/errors.js';
import { LARGE_DOCUMENT_BYTES } from './sbom-reader.js';

/** What a client is told to wait before retrying: a large ingest takes a few seconds. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Bounds the SBOM bodies held in memory at once. Each request reserves its declared size (a
 * chunked body, whose size is unknown, reserves the maximum) before its body is read, and
 * gives it back when its response is done or its connection closes; a request that does not
 * fit gets 503 with Retry-After and its body is never read. One body of the maximum size
 * always fits when nothing else is held, so no valid upload is refused forever.
 *
 * One organisation's large bodies (over LARGE_DOCUMENT_BYTES, and chunked ones) hold at most half
 * the budget, or one body of the maximum size if that is more: two uploads that trickle a byte now
 * and then, each holding the maximum for up to SBOM_REQUEST_TIMEOUT_MS, held the whole budget,
 * and every organisation's uploads were refused. Its small bodies are refused only when the
 * budget itself is full (an organisation's many small uploads are its pipelines at work).
 * Runs as the route's preParsing hook: after authentication, before the body is read.
 */
export function createBodyBudget(options: { budgetBytes: number; maxBodyBytes: number }) {
  const budget = Math.max(options.budgetBytes, options.maxBodyBytes);
  const organisationShare = Math.max(options.maxBodyBytes, Math.floor(budget / 2));
  let held = 0;
  /** Bytes of large bodies held, by organisation. */
  const largeHeld = new Map<string, number>();

  return {
    get heldBytes(): number {
      return held;
    },
    async reserve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const declared = Number(request.headers['content-length']);
      // Over the maximum: reserve nothing, the body limit answers 413 without holding it.
      const size = Number.isFinite(declared) && declared >= 0 ? declared : options.maxBodyBytes;
      if (size > options.maxBodyBytes) return;
      const organisation = request.principal?.orgId ?? '';
      const large = size > LARGE_DOCUMENT_BYTES ? size : 0;
      const organisationHeld = largeHeld.get(organisation) ?? 0;
      const full = held + size > budget;
      if (full || organisationHeld + large > organisationShare) {
        reply.header('retry-after', String(RETRY_AFTER_SECONDS));
        request.log.warn(
          { heldBytes: held, organisationLargeBytes: organisationHeld, size },
          full
            ? 'SBOM upload refused: too many large bodies in memory'
            : "SBOM upload refused: the organisation's large bodies hold its share of memory",
        );
        sendError(
          reply,
          'service_unavailable',
          full
            ? 'too many SBOM uploads are being processed; retry later'
            : 'too many large SBOM uploads of this organisation are being processed; retry later',
        );
        return;
      }
      held += size;
      if (large > 0) largeHeld.set(organisation, organisationHeld + large);
      let released = false;
      reply.raw.once('close', () => {
        if (released) return;
        released = true;
        held -= size;
        if (large === 0) return;
        const left = largeHeld.get(organisation)! - large;
        if (left === 0) largeHeld.delete(organisation);
        else largeHeld.set(organisation, left);
      });
    },
  };
}
