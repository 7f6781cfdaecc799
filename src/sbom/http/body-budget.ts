import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../../http/errors.js';

/** What a client is told to wait before retrying: a large ingest takes a few seconds. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * Bounds the SBOM bodies held in memory at once. Each request reserves its declared size (a
 * chunked body, whose size is unknown, reserves the maximum) before its body is read, and
 * gives it back when its response is done or its connection closes; a request that does not
 * fit gets 503 with Retry-After and its body is never read. One body of the maximum size
 * always fits when nothing else is held, so no valid upload is refused forever.
 *
 * One organisation's bodies hold at most half the budget, or one body of the maximum size if
 * that is more. Uploads that trickle a byte now and then hold what they reserved for up to
 * SBOM_REQUEST_TIMEOUT_MS: two chunked ones, or thirteen declaring 8 MiB, held the whole budget
 * and every organisation's uploads were refused. Now the others always keep the other half.
 * Runs as the route's preParsing hook: after authentication, before the body is read. The
 * console's upload form holds from the same budget (one per process, made in app.ts).
 */
export function createBodyBudget(options: { budgetBytes: number; maxBodyBytes: number }) {
  const budget = Math.max(options.budgetBytes, options.maxBodyBytes);
  const organisationShare = Math.max(options.maxBodyBytes, Math.floor(budget / 2));
  let held = 0;
  /** Bytes held, by organisation. */
  const heldBy = new Map<string, number>();

  /**
   * Holds `size` bytes of the organisation's until the reply's connection closes: 'held', or
   * why not ('full': the bound; 'share': the organisation's half; 'gone': the client left
   * already, nothing held and nothing to answer).
   */
  function hold(request: FastifyRequest, reply: FastifyReply, organisation: string, size: number): 'held' | 'full' | 'share' | 'gone' {
    // A client gone while it was authenticated: its 'close' has fired already, and what it
    // reserved would never be given back.
    if (request.raw.destroyed || reply.raw.destroyed || reply.raw.closed) return 'gone';
    const organisationHeld = heldBy.get(organisation) ?? 0;
    if (held + size > budget) return 'full';
    if (organisationHeld + size > organisationShare) return 'share';
    held += size;
    heldBy.set(organisation, organisationHeld + size);
    let released = false;
    reply.raw.once('close', () => {
      if (released) return;
      released = true;
      held -= size;
      const left = heldBy.get(organisation)! - size;
      if (left === 0) heldBy.delete(organisation);
      else heldBy.set(organisation, left);
    });
    return 'held';
  }

  return {
    get heldBytes(): number {
      return held;
    },
    /** Bytes the organisation's bodies hold. */
    heldFor(organisation: string): number {
      return heldBy.get(organisation) ?? 0;
    },
    hold,
    /** The API route's preParsing hook: holds the declared size, or answers 503 with Retry-After. */
    async reserve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const declared = Number(request.headers['content-length']);
      // Over the maximum: reserve nothing, the body limit answers 413 without holding it.
      const size = Number.isFinite(declared) && declared >= 0 ? declared : options.maxBodyBytes;
      if (size > options.maxBodyBytes) return;
      const organisation = request.principal?.orgId ?? '';
      const organisationHeld = heldBy.get(organisation) ?? 0;
      const outcome = hold(request, reply, organisation, size);
      if (outcome === 'held' || outcome === 'gone') return;
      const full = outcome === 'full';
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      request.log.warn(
        { heldBytes: held, organisationHeldBytes: organisationHeld, size },
        full
          ? 'SBOM upload refused: too many large bodies in memory'
          : "SBOM upload refused: the organisation's bodies hold its share of memory",
      );
      sendError(
        reply,
        'service_unavailable',
        full
          ? 'too many SBOM uploads are being processed; retry later'
          : 'too many SBOM uploads of this organisation are being processed; retry later',
      );
    },
  };
}

export type BodyBudget = ReturnType<typeof createBodyBudget>;
