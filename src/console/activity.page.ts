import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChainCheck } from '../registry/registry-chain.js';
import type { ConsoleDeps } from './context.js';
import { orgSlug, render } from './render.js';

// The activity registry: newest first, filterable by action; "Verify" recomputes the hash chain.
// With htmx the result replaces one section in place; without JavaScript the same link loads the
// whole page with the result.

const PER_PAGE = 50;

export function registerActivityPages(org: FastifyInstance, deps: ConsoleDeps): void {
  async function page(request: FastifyRequest, reply: FastifyReply, verification: ChainCheck | null) {
    const query = request.query as { action?: string; before?: string };
    const action = typeof query.action === 'string' && query.action ? query.action.slice(0, 100) : undefined;
    const before = /^[1-9]\d{0,12}$/.test(query.before ?? '') ? Number(query.before) : undefined;
    const { entries, actions } = await deps.registry.recent(orgSlug(request), {
      action,
      beforeSeq: before,
      limit: PER_PAGE,
    });
    const older = entries.length === PER_PAGE ? entries[entries.length - 1]!.seq : null;
    return render(request, reply, 'activity', {
      title: 'Activity',
      section: 'activity',
      entries,
      actions,
      action: action ?? '',
      older,
      verification,
    });
  }

  org.get('/activity', { config: { permission: 'read' } }, (request, reply) => page(request, reply, null));

  org.get('/activity/verify', { config: { permission: 'read' } }, async (request, reply) => {
    const verification = await deps.registry.verify(orgSlug(request));
    if (request.headers['hx-request']) return render(request, reply, 'activity-verify', { verification });
    return page(request, reply, verification);
  });
}
