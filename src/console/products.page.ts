import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { PRODUCT_NAME_MAX, SkuSchema } from '../products/products.schemas.js';
import { parseTimestamp } from '../shared/time.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { apiBaseUrl, EXAMPLE_SKU, firstSteps } from './first-steps.js';
import { type FieldErrors, parseForm, serviceErrors } from './forms.js';
import { pageOf, ROWS_PER_PAGE } from './paging.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';
import { productVulnerabilities } from './vulnerabilities.page.js';
import { conformanceBadge, conformanceFilterOf, passesConformanceFilter } from './conformance.page.js';
import { PROFILES } from '../sbom/conformance/conformance.js';

// Products: the catalogue, one product with its SBOM revisions and a revision's components.
// The SBOM upload form is sbom-upload.page.ts.

const COMPONENTS_PER_PAGE = 200;
export const PRODUCTS_PER_PAGE = ROWS_PER_PAGE;
const DATE = { pattern: '^(\\d{4}-\\d{2}-\\d{2})?$', message: 'Give a date as YYYY-MM-DD, or leave it empty.' };
const ProductForm = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: PRODUCT_NAME_MAX,
    message: `Give the product a name of 1 to ${PRODUCT_NAME_MAX} characters.`,
  }),
  gtin: Type.String({ pattern: '^[0-9 ]{0,20}$', message: 'A GTIN has 8, 12, 13 or 14 digits.' }),
  firmware_version: Type.String({ maxLength: 100, message: 'At most 100 characters.' }),
  end_of_support: Type.String(DATE),
  // Optional: a form without the field leaves the markets as they are.
  markets: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z ,]{0,200}$',
      message: 'Give Member State codes separated by commas (DE, FR), or EU for all of them.',
    }),
  ),
});
const NewProductForm = Type.Composite([
  Type.Object({
    sku: Type.String({ ...SkuSchema, message: 'A SKU is 1 to 100 letters, digits, dots, dashes or underscores.' }),
  }),
  ProductForm,
]);

function fields(value: { name: string; gtin: string; firmware_version: string; end_of_support: string; markets?: string }) {
  const markets = value.markets
    ?.split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  return {
    markets: markets === undefined ? undefined : markets.length ? markets : null,
    name: value.name,
    gtin: value.gtin.replace(/\s+/g, '') || null,
    firmwareVersion: value.firmware_version || null,
    endOfSupport: value.end_of_support ? parseTimestamp(value.end_of_support) : null,
  };
}

const isMarketsError = (error: unknown) => error instanceof AppError && error.message.startsWith('markets:');

const productsUrl = (request: FastifyRequest) => `/console/o/${encodeURIComponent(orgSlug(request))}/products`;

/** One product with its SBOM revisions (and, after an upload, the outcome or the errors). */
export async function productPage(
  deps: ConsoleDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  extra: { errors?: FieldErrors; notice?: string } = {},
  status = 200,
) {
  const product = await deps.products.requireProduct(request.viewer!.org!.org_id, (request.params as { sku: string }).sku);
  const [revisions, vulns] = await Promise.all([
    deps.sbomHistory.revisions(orgSlug(request), product.sku),
    productVulnerabilities(deps, orgSlug(request), product.sku),
  ]);
  const conformance = await deps.sbomConformance.summaries(
    product.org_id,
    revisions.map((r) => r.id),
  );
  const badges = new Map(revisions.map((r) => [r.id, conformanceBadge(conformance.bySbom.get(r.id))]));
  return render(
    request,
    reply,
    'product',
    {
      title: product.name,
      section: 'products',
      product,
      revisions,
      badges,
      conformanceProfile: PROFILES[conformance.profile].title,
      vulns,
      productBase: `${productsUrl(request)}/${encodeURIComponent(product.sku)}`,
      ...extra,
    },
    status,
  );
}

export function registerProductPages(org: FastifyInstance, deps: ConsoleDeps): void {
  const base = productsUrl;
  const skuOf = (request: FastifyRequest) => (request.params as { sku: string }).sku;

  org.get('/products', { config: { permission: 'read' } }, async (request, reply) => {
    const [all, latest] = await Promise.all([
      deps.products.listProducts(orgSlug(request)),
      deps.sbomConformance.latestByProduct(orgSlug(request)),
    ]);
    const filter = conformanceFilterOf(request);
    const shown = all.filter((p) => passesConformanceFilter(filter, latest.byProduct.get(p.id)));
    const { rows, ...paging } = pageOf(request, shown, PRODUCTS_PER_PAGE);
    const products = rows.map((p) => {
      const newest = latest.byProduct.get(p.id);
      const href = newest
        ? `${base(request)}/${encodeURIComponent(p.sku)}/releases/${encodeURIComponent(newest.release_version)}/revisions/${newest.revision}/conformance`
        : null;
      return { ...p, conformance: newest ? { badge: conformanceBadge(newest.summary), href: newest.summary ? href : null } : null };
    });
    const steps = firstSteps(apiBaseUrl(request, deps.config), orgSlug(request), EXAMPLE_SKU);
    return render(request, reply, 'products', {
      title: 'Products',
      section: 'products',
      products,
      steps,
      filter: filter ?? '',
      catalogueSize: all.length,
      conformanceProfile: PROFILES[latest.profile].title,
      ...paging,
    });
  });

  const formPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { product?: unknown; errors?: FieldErrors; values?: Record<string, unknown> },
    status = 200,
  ) =>
    render(
      request,
      reply,
      'product-form',
      { title: data.product ? 'Edit product' : 'Add a product', section: 'products', product: null, ...data },
      status,
    );

  org.get('/products/new', { config: { permission: 'products' } }, async (request, reply) => {
    return formPage(request, reply, {});
  });

  org.post('/products', { config: { permission: 'products' } }, async (request, reply) => {
    const form = parseForm(NewProductForm, request.body);
    if (!form.ok) return formPage(request, reply, { errors: form.errors, values: form.values }, 400);
    try {
      await deps.products.addProduct(orgSlug(request), form.value.sku, fields(form.value), actorOf(request.viewer!));
    } catch (error) {
      const field =
        error instanceof AppError && /not a valid GTIN/.test(error.message) ? 'gtin' : isMarketsError(error) ? 'markets' : 'sku';
      return formPage(request, reply, { errors: serviceErrors(error, field), values: form.value }, 400);
    }
    return redirect(request, reply, `${base(request)}/${encodeURIComponent(form.value.sku)}`);
  });

  org.get('/products/:sku', { config: { permission: 'read' } }, async (request, reply) => productPage(deps, request, reply));

  org.get('/products/:sku/edit', { config: { permission: 'products' } }, async (request, reply) => {
    const product = await deps.products.requireProduct(request.viewer!.org!.org_id, skuOf(request));
    const values = {
      name: product.name,
      gtin: product.gtin_declared ?? '',
      firmware_version: product.firmware_version ?? '',
      end_of_support: product.end_of_support?.slice(0, 10) ?? '',
      markets: product.markets ? (JSON.parse(product.markets) as string[]).join(', ') : '',
    };
    return formPage(request, reply, { product, values });
  });

  org.post('/products/:sku', { config: { permission: 'products' } }, async (request, reply) => {
    const product = await deps.products.requireProduct(request.viewer!.org!.org_id, skuOf(request));
    const form = parseForm(ProductForm, request.body);
    if (!form.ok) return formPage(request, reply, { product, errors: form.errors, values: form.values }, 400);
    try {
      await deps.products.updateProduct(orgSlug(request), product.sku, fields(form.value), actorOf(request.viewer!));
    } catch (error) {
      const field =
        error instanceof AppError && /not a valid GTIN/.test(error.message) ? 'gtin' : isMarketsError(error) ? 'markets' : 'name';
      return formPage(request, reply, { product, errors: serviceErrors(error, field), values: form.value }, 400);
    }
    return redirect(request, reply, `${base(request)}/${encodeURIComponent(product.sku)}`);
  });

  org.post('/products/:sku/archive', { config: { permission: 'products' } }, async (request, reply) => {
    const product = await deps.products.requireProduct(request.viewer!.org!.org_id, skuOf(request));
    await deps.products.archiveProduct(orgSlug(request), product.sku, actorOf(request.viewer!));
    return redirect(request, reply, `${base(request)}/${encodeURIComponent(product.sku)}`);
  });

  // The document as received, byte for byte (checked against its SHA-256 as it is read); only
  // through this organisation's product and revision, so another's is a 404 like any absent one.
  org.get('/products/:sku/releases/:version/revisions/:revision/document', { config: { permission: 'read' } }, async (request, reply) => {
    const params = request.params as { sku: string; version: string; revision: string };
    if (!/^[1-9]\d{0,8}$/.test(params.revision)) throw new AppError('not_found', 'no such revision');
    const document = await deps.sbomDocuments.download(orgSlug(request), params.sku, {
      release: params.version,
      revision: Number(params.revision),
    });
    return reply
      .type('application/octet-stream')
      .header('content-disposition', `attachment; filename="${document.filename}"`)
      .header('x-content-sha256', document.digest)
      .header('cache-control', 'no-store')
      .send(document.bytes);
  });

  org.get('/products/:sku/releases/:version/revisions/:revision', { config: { permission: 'read' } }, async (request, reply) => {
    const params = request.params as { sku: string; version: string; revision: string };
    const page = Math.max(1, Number((request.query as { page?: string }).page) || 1);
    if (!/^[1-9]\d{0,8}$/.test(params.revision)) throw new AppError('not_found', 'no such revision');
    const { revision, components } = await deps.sbomHistory.revision(
      orgSlug(request),
      params.sku,
      params.version,
      Number(params.revision),
      {
        offset: (page - 1) * COMPONENTS_PER_PAGE,
        limit: COMPONENTS_PER_PAGE,
      },
    );
    const pages = Math.max(1, Math.ceil(revision.components / COMPONENTS_PER_PAGE));
    const productBase = `${base(request)}/${encodeURIComponent(params.sku)}`;
    const conformance = await deps.sbomConformance.summaries(request.viewer!.org!.org_id, [revision.id]);
    const summary = conformance.bySbom.get(revision.id);
    return render(request, reply, 'revision', {
      conformance: {
        badge: conformanceBadge(summary),
        profile: PROFILES[conformance.profile].title,
        href: summary
          ? `${base(request)}/${encodeURIComponent(params.sku)}/releases/${encodeURIComponent(revision.release_version)}/revisions/${revision.revision}/conformance`
          : null,
      },
      title: `${params.sku} ${revision.release_version} revision ${revision.revision}`,
      section: 'products',
      sku: params.sku,
      revision,
      components,
      page,
      pages,
      productBase,
      url: request.url.split('?')[0],
    });
  });
}
