import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { type FieldErrors, parseForm, serviceErrors } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';

// Candidate CPEs (firmware.md, "Candidates for components without an identifier"): the
// components of the latest revisions named by name and version alone, each with the CPEs the
// vendor table and the NVD's product names suggest; a person confirms one for that component
// name, organisation-wide, and every product holding it is matched again through it. The
// confirmed mappings, each with its undo. The same service as `cra-admin component candidates`
// and `component map-cpe`; each change is an entry in the activity registry.

const MapForm = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 1000, message: 'Choose a component name.' }),
  cpe: Type.String({ minLength: 1, maxLength: 1000, message: 'Give a CPE of 1 to 1,000 characters.' }),
});
const UnmapForm = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 1000, message: 'Choose a mapping to undo.' }),
  cpe: Type.String({ minLength: 1, maxLength: 1000, message: 'Choose a mapping to undo.' }),
});

/** Shown after a change: what it did to the organisation's components. */
function doneNotice(query: { done?: string; n?: string; cpe?: string; name?: string }): string | undefined {
  const count = Number(query.n) || 0;
  const matched = `${count} component${count === 1 ? '' : 's'} of that name matched again`;
  if (query.done === 'mapped') return `${query.cpe ?? 'The CPE'} is confirmed for "${query.name ?? ''}": ${matched}.`;
  if (query.done === 'unmapped') return `The mapping of "${query.name ?? ''}" is undone: ${matched}.`;
  return undefined;
}

export function registerCpeCandidatesPage(org: FastifyInstance, deps: ConsoleDeps): void {
  const here = (request: FastifyRequest) => `/console/o/${encodeURIComponent(orgSlug(request))}/components/candidates`;

  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: FieldErrors; values?: Record<string, unknown>; notice?: string } = {},
    status = 200,
  ) {
    const slug = orgSlug(request);
    const sku = (request.query as { product?: string }).product || undefined;
    const [candidates, mappings, products] = await Promise.all([
      deps.vulns.cpeCandidates(slug, sku),
      deps.vulns.cpeMappings(slug),
      deps.products.listProducts(slug),
    ]);
    return render(
      request,
      reply,
      'cpe-candidates',
      { title: 'Candidate CPEs', section: 'vulnerabilities', candidates, mappings, products, sku: sku ?? '', ...extra },
      status,
    );
  }

  org.get('/components/candidates', { config: { permission: 'read' } }, async (request, reply) =>
    page(request, reply, { notice: doneNotice(request.query as Record<string, string>) }),
  );

  org.post('/components/cpe-mappings', { config: { permission: 'analysis' } }, async (request, reply) => {
    const form = parseForm(MapForm, request.body);
    if (!form.ok) return page(request, reply, { errors: form.errors, values: form.values }, 400);
    try {
      const done = await deps.vulns.mapCpe({ org: orgSlug(request), ...form.value, actor: actorOf(request.viewer!) });
      const q = new URLSearchParams({ done: 'mapped', n: String(done.components), cpe: done.cpe, name: done.name });
      return redirect(request, reply, `${here(request)}?${q}`);
    } catch (error) {
      return page(request, reply, { errors: { [`cpe:${form.value.name}`]: serviceErrors(error)._form! }, values: form.value }, 400);
    }
  });

  org.post('/components/cpe-mappings/remove', { config: { permission: 'analysis' } }, async (request, reply) => {
    const form = parseForm(UnmapForm, request.body);
    if (!form.ok) return page(request, reply, { errors: { _form: 'Choose a mapping to undo.' } }, 400);
    try {
      const done = await deps.vulns.unmapCpe({ org: orgSlug(request), ...form.value, actor: actorOf(request.viewer!) });
      const q = new URLSearchParams({ done: 'unmapped', n: String(done.components), name: done.name });
      return redirect(request, reply, `${here(request)}?${q}`);
    } catch (error) {
      // Undone meanwhile (another tab, the CLI): said on the page, not a 404.
      if (error instanceof AppError && error.code === 'not_found') return page(request, reply, { errors: { _form: error.message } }, 409);
      return page(request, reply, { errors: serviceErrors(error) }, 400);
    }
  });
}
