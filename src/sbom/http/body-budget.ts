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
 * console's upload form holds from the same budget (one per process, made in app.ts). The
 * disclosure report form, anonymous, holds from a budget of its own through `account`: the bytes
 * as they arrive, nothing up front (two chunked reports that trickled a byte a second held its
 * whole budget otherwise).
 */
export function createBodyBudget(options: { budgetBytes: number; maxBodyBytes: number }) {
  const budget = Math.max(options.budgetBytes, options.maxBodyBytes);
  const organisationShare = Math.max(options.maxBodyBytes, Math.floor(budget / 2));
  let held = 0;
  /** Bytes held, by organisation. */
  const heldBy = new Map<string, number>();

  /** Whether `size` more bytes of the organisation's fit: 'held', or which bound they pass. */
  function fits(organisation: string, size: number): 'held' | 'full' | 'share' {
    if (held + size > budget) return 'full';
    if ((heldBy.get(organisation) ?? 0) + size > organisationShare) return 'share';
    return 'held';
  }

  function add(organisation: string, size: number): void {
    held += size;
    const left = (heldBy.get(organisation) ?? 0) + size;
    if (left === 0) heldBy.delete(organisation);
    else heldBy.set(organisation, left);
  }

  /** A client gone before anything is held: its 'close' has fired already, and what it held would never be given back. */
  const gone = (request: FastifyRequest, reply: FastifyReply) => request.raw.destroyed || reply.raw.destroyed || reply.raw.closed;

  /**
   * Holds `size` bytes of the organisation's until the reply's connection closes: 'held', or
   * why not ('full': the bound; 'share': the organisation's half; 'gone': the client left
   * already, nothing held and nothing to answer).
   */
  function hold(request: FastifyRequest, reply: FastifyReply, organisation: string, size: number): 'held' | 'full' | 'share' | 'gone' {
    // A client gone while it was authenticated.
    if (gone(request, reply)) return 'gone';
    const outcome = fits(organisation, size);
    if (outcome !== 'held') return outcome;
    add(organisation, size);
    reply.raw.once('close', () => add(organisation, -size));
    return 'held';
  }

  /**
   * An account that holds the organisation's bytes as they arrive, never before (the report
   * form: nothing is reserved for a body that has not come, so a body that trickles holds only
   * what it sent), all given back when the reply's connection closes; null when the client left
   * already. Its `take(bytes)` holds `bytes` more, or says which bound they would pass, or
   * 'gone' once the connection has closed.
   */
  function account(
    request: FastifyRequest,
    reply: FastifyReply,
    organisation: string,
  ): { take(bytes: number): 'held' | 'full' | 'share' | 'gone' } | null {
    if (gone(request, reply)) return null;
    let mine = 0;
    let closed = false;
    reply.raw.once('close', () => {
      closed = true;
      add(organisation, -mine);
      mine = 0;
    });
    return {
      take(bytes) {
        if (closed) return 'gone';
        const outcome = fits(organisation, bytes);
        if (outcome !== 'held') return outcome;
        add(organisation, bytes);
        mine += bytes;
        return 'held';
      },
    };
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
    account,
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
