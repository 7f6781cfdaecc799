import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { ConsoleDeps } from './context.js';
import { type FieldErrors, parseForm } from './forms.js';
import { orgSlug, render } from './render.js';

// Portfolio questions over the organisation's SBOMs, the console's door to the services behind
// `cra-admin sbom diff` and `cra-admin component search`: what changed between two revisions
// of a release, and which products, releases and revisions contain a component. Both are GET
// forms (readable by every role, bookmarkable, no JavaScript needed).

/** Rows shown per list; a diff or search past that says how many more there are. */
export const PORTFOLIO_ROWS = 1_000;

const REVISION = { pattern: '^[1-9]\\d{0,8}$', message: 'Choose a revision.' };
const DiffQuery = Type.Object({ from: Type.Optional(Type.String(REVISION)), to: Type.Optional(Type.String(REVISION)) });
const SearchQuery = Type.Object({
  purl: Type.String({ maxLength: 1000, message: 'A package URL has at most 1000 characters.' }),
  name: Type.String({ maxLength: 1000, message: 'A name has at most 1000 characters.' }),
  version: Type.String({ maxLength: 200, message: 'A version has at most 200 characters.' }),
});

const capped = <T>(list: T[]) => ({ rows: list.slice(0, PORTFOLIO_ROWS), more: Math.max(0, list.length - PORTFOLIO_ROWS) });

export function registerPortfolioPages(org: FastifyInstance, deps: ConsoleDeps): void {
  const productsBase = (request: FastifyRequest) => `/console/o/${encodeURIComponent(orgSlug(request))}/products`;

  org.get('/products/:sku/releases/:version/diff', { config: { permission: 'read' } }, async (request, reply) => {
    const { sku, version } = request.params as { sku: string; version: string };
    const orgId = request.viewer!.org!.org_id;
    const product = await deps.products.requireProduct(orgId, sku);
    const revisions = (await deps.sbomHistory.revisions(orgSlug(request), product.sku))
      .filter((r) => r.release_version === version)
      .sort((a, b) => a.revision - b.revision);
    if (revisions.length === 0) throw new AppError('not_found', `no release ${version}`);
    const numbers = revisions.map((r) => r.revision);
    const latest = numbers[numbers.length - 1]!;
    const query = parseForm(DiffQuery, request.query);
    const errors: FieldErrors = query.ok ? {} : { ...query.errors };
    const chosen = (field: 'from' | 'to', fallback: number) => {
      const raw = (query.ok ? query.value : query.values)[field] as string | undefined;
      if (raw === undefined || errors[field]) return fallback;
      const n = Number(raw);
      if (!numbers.includes(n)) errors[field] = `Release ${version} has no revision ${n}; choose one of ${numbers.join(', ')}.`;
      return n;
    };
    const to = chosen('to', latest);
    const from = chosen('from', Math.max(1, numbers.includes(to - 1) ? to - 1 : numbers[0]!));
    const productBase = `${productsBase(request)}/${encodeURIComponent(product.sku)}`;
    const data = {
      title: `${product.sku} ${version}: what changed`,
      section: 'products',
      product,
      version,
      revisions,
      from,
      to,
      productBase,
    };
    if (Object.keys(errors).length > 0) return render(request, reply, 'sbom-diff', { ...data, errors, diff: null }, 400);
    if (numbers.length < 2) return render(request, reply, 'sbom-diff', { ...data, diff: null });
    const diff = await deps.portfolio.diffRevisions(orgSlug(request), product.sku, { release: version, from, to });
    return render(request, reply, 'sbom-diff', {
      ...data,
      diff: { added: capped(diff.added), removed: capped(diff.removed), changed: capped(diff.changed) },
    });
  });

  org.get('/components', { config: { permission: 'read' } }, async (request, reply) => {
    const query = parseForm(SearchQuery, { purl: '', name: '', version: '', ...(request.query as object) });
    const data = { title: 'Find a component', section: 'products', productsBase: productsBase(request), hits: null };
    if (!query.ok) return render(request, reply, 'components', { ...data, errors: query.errors, values: query.values }, 400);
    const { purl, name, version } = query.value;
    if (!purl && !name && !version) return render(request, reply, 'components', data);
    const errors: FieldErrors = {};
    if (purl && (name || version)) errors.purl = 'Search either by package URL or by name and version, not both.';
    else if (version && !name) errors.name = 'Give the name that goes with this version.';
    if (Object.keys(errors).length > 0) return render(request, reply, 'components', { ...data, errors, values: query.value }, 400);
    const match = purl ? { purl } : { name, ...(version ? { version } : {}) };
    const hits = await deps.portfolio.searchComponents(orgSlug(request), match);
    const products = new Set(hits.map((h) => h.sku)).size;
    const releases = new Set(hits.map((h) => `${h.sku}\u0000${h.release_version}`)).size;
    return render(request, reply, 'components', {
      ...data,
      values: query.value,
      searched: purl ? `package URL ${purl}` : version ? `${name} ${version}` : name,
      hits: capped(hits),
      total: hits.length,
      products,
      releases,
    });
  });
}
