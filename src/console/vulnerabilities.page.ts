import { evidenceSentence } from '../vulns/match/cpe/evidence.js';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import {
  ANALYSIS_DETAIL_MAX,
  ANALYSIS_STATES,
  type AnalysisState,
  type FindingsFilter,
  JUSTIFICATIONS,
  RESPONSES,
  SEVERITY_BANDS,
  type SeverityBand,
} from '../vulns/vulns.schemas.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { type FieldErrors, parseForm } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';

// Vulnerabilities: the organisation's findings across the portfolio, a page at a time (filtered
// and ordered in the query: the list may hold 100,000), and one vulnerability with its findings
// and the analysis form (the service behind `cra-admin finding analyse`, a registry entry per
// product). Every member reads; analysts, admins and owners analyse.

export const FINDINGS_PER_PAGE = 50;

const literals = (values: readonly string[]) => values.map((v) => Type.Literal(v));
const choice = (values: readonly string[], message: string) => Type.Optional(Type.Union(literals(['', ...values]), { message }));

const FilterQuery = Type.Object({
  product: Type.Optional(Type.String({ pattern: '^([A-Za-z0-9._-]{1,100})?$', message: 'Choose a product.' })),
  release: Type.Optional(Type.String({ maxLength: 200, message: 'A release version has at most 200 characters.' })),
  state: choice(['open', ...ANALYSIS_STATES], 'Choose an analysis state.'),
  exploited: choice(['yes', 'no'], 'Choose exploited or not.'),
  severity: choice(SEVERITY_BANDS, 'Choose a severity.'),
  market: choice(['1'], 'Tick the box or leave it.'),
  conditional: choice(['1'], 'Tick the box or leave it.'),
});

const AnalysisForm = Type.Object({
  sku: Type.Optional(Type.String({ maxLength: 100, message: 'Choose a product.' })),
  all_products: Type.Optional(Type.Literal('yes')),
  state: Type.Union(literals(ANALYSIS_STATES), { message: 'Choose the state of the analysis.' }),
  justification: Type.Optional(Type.Union(literals(['', ...JUSTIFICATIONS]), { message: 'Choose a justification from the list.' })),
  responses: Type.Array(Type.Union(literals(RESPONSES)), { maxItems: RESPONSES.length, message: 'Choose responses from the list.' }),
  detail: Type.Optional(
    Type.String({ maxLength: ANALYSIS_DETAIL_MAX, message: `At most ${ANALYSIS_DETAIL_MAX.toLocaleString('en')} characters.` }),
  ),
  future: Type.Optional(Type.Literal('yes')),
  until: Type.Optional(
    Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2})?$', message: 'Give the last day as YYYY-MM-DD, or leave it empty.' }),
  ),
});

/** The words a state, a justification or a response is shown with. */
export const words = (value: string) => value.replace(/_/g, ' ');

/** The query string of a filter (without the page), for links that keep it. */
export function filterQuery(filter: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) if (value) params.set(key, value);
  return params.toString();
}

/**
 * The analysis rules that span two fields, in the form's words, by the field the service says
 * each concerns (the choices of state, justification and responses are the form's own to check).
 */
const ANALYSIS_RULES: Readonly<Record<string, string>> = {
  sku: 'Choose a product, or apply the analysis to all products that have it.',
  justification: 'A justification says why a product is not affected: choose the state not affected, or no justification.',
  until: 'An end date bounds a rule for later findings: tick "Also for findings that appear later", or leave it empty.',
};

/** A service's error about a field of the analysis form, beside that field; any other error is rethrown. */
function analysisErrors(error: unknown): FieldErrors {
  const field = error instanceof AppError ? error.details?.[0]?.path : undefined;
  if (field === undefined) throw error;
  const rule = (error as AppError).code === 'validation_failed' && Object.hasOwn(ANALYSIS_RULES, field) ? ANALYSIS_RULES[field] : undefined;
  return { [field]: rule ?? (error as AppError).message };
}

const VEX_DOWNLOADS: Record<string, { type: string; name: (sku: string, release: string, doc: Record<string, unknown>) => string }> = {
  cyclonedx: { type: 'application/vnd.cyclonedx+json; version=1.6', name: (sku, release) => `${sku}-${release}.vex.cdx.json` },
  // CSAF 2.0 §5.1: the file is named after /document/tracking/id, lower-cased, other characters as _.
  csaf: {
    type: 'application/json',
    name: (_sku, _release, doc) =>
      `${String((doc.document as { tracking?: { id?: string } } | undefined)?.tracking?.id ?? 'csaf-vex')
        .toLowerCase()
        .replace(/[^+\-a-z0-9]+/g, '_')}.json`,
  },
  openvex: { type: 'application/json', name: (sku, release) => `${sku}-${release}.openvex.json` },
};

/** A product's vulnerabilities as its page shows them: coverage, and findings per release. */
export async function productVulnerabilities(deps: ConsoleDeps, slug: string, sku: string) {
  const [[coverage], findings] = await Promise.all([deps.vulns.coverage(slug, sku), deps.vulns.productFindings(slug, sku)]);
  return { coverage: coverage!, ...findings };
}

export function registerVulnerabilityPages(org: FastifyInstance, deps: ConsoleDeps): void {
  const base = (request: FastifyRequest) => `/console/o/${encodeURIComponent(orgSlug(request))}`;

  org.get('/vulnerabilities', { config: { permission: 'read' } }, async (request, reply) => {
    const slug = orgSlug(request);
    const [products, feeds] = await Promise.all([deps.products.listProducts(slug), deps.vulns.feeds()]);
    const form = parseForm(FilterQuery, request.query);
    const data = { title: 'Vulnerabilities', section: 'vulnerabilities', products, osv: feeds.find((f) => f.kind === 'osv') };
    if (!form.ok) {
      return render(request, reply, 'vulnerabilities', { ...data, errors: form.errors, values: form.values, findings: null }, 400);
    }
    const q = form.value;
    const filter: FindingsFilter = {
      sku: q.product || undefined,
      release: q.release || undefined,
      state: (q.state || undefined) as AnalysisState | 'open' | undefined,
      exploited: q.exploited ? q.exploited === 'yes' : undefined,
      severity: (q.severity || undefined) as SeverityBand | undefined,
      onMarket: q.market === '1' || undefined,
      conditional: q.conditional === '1' || undefined,
    };
    // ?page=N: anything else is the first page, past the end the last.
    let page = Math.min(1_000_000, Math.max(1, Math.floor(Number((request.query as { page?: string }).page)) || 1));
    let result = await deps.vulns.listFindings(slug, filter, { offset: (page - 1) * FINDINGS_PER_PAGE, limit: FINDINGS_PER_PAGE });
    const pages = Math.max(1, Math.ceil(result.count / FINDINGS_PER_PAGE));
    if (page > pages) {
      // Past the end (the list shrank, or a typed address): the last page.
      page = pages;
      result = await deps.vulns.listFindings(slug, filter, { offset: (page - 1) * FINDINGS_PER_PAGE, limit: FINDINGS_PER_PAGE });
    }
    const values = {
      product: q.product,
      release: q.release,
      state: q.state,
      exploited: q.exploited,
      severity: q.severity,
      market: q.market,
      conditional: q.conditional,
    };
    // Conditional findings are counted apart (firmware.md): how many the other list leaves out.
    const apart = filter.conditional
      ? 0
      : (await deps.vulns.listFindings(slug, { ...filter, conditional: true }, { offset: 0, limit: 1 })).count;
    return render(request, reply, 'vulnerabilities', {
      ...data,
      values,
      apart,
      conditionalQuery: filterQuery({ ...values, conditional: '1' }),
      findings: result.findings,
      count: result.count,
      page,
      pages,
      first: (page - 1) * FINDINGS_PER_PAGE + 1,
      query: filterQuery(values),
      filtered: Object.values(values).some(Boolean),
    });
  });

  /** One vulnerability: what the feeds say, the organisation's findings of it, the analysis form. */
  async function vulnerabilityPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: FieldErrors; values?: Record<string, unknown>; notice?: string } = {},
    status = 200,
  ) {
    const id = (request.params as { id: string }).id;
    const vulnerability = await deps.vulns.show(id, orgSlug(request));
    const findings = vulnerability.findings ?? [];
    const skus = [...new Set(findings.map((f) => f.product_sku))].sort();
    const chosen = (request.query as { product?: string }).product;
    // A product of the finding chosen on the list, else the first; the current analysis prefilled.
    const sku = skus.includes(chosen ?? '') ? chosen! : skus[0];
    const current = findings.find((f) => f.product_sku === sku);
    const values = extra.values ?? {
      sku,
      state: current?.state ?? 'in_triage',
      justification: current?.justification ?? '',
      responses: current?.responses ?? [],
      detail: current?.detail ?? '',
    };
    return render(
      request,
      reply,
      'vulnerability',
      {
        title: vulnerability.vulnerability,
        section: 'vulnerabilities',
        vulnerability,
        findings,
        skus,
        states: ANALYSIS_STATES,
        justifications: JUSTIFICATIONS,
        responses: RESPONSES,
        words,
        evidence: (f: (typeof findings)[number]) => (f.match ? evidenceSentence(f.component.name, f.match) : ''),
        vulnBase: `${base(request)}/vulnerabilities/${encodeURIComponent(vulnerability.vulnerability)}`,
        ...extra,
        values,
      },
      status,
    );
  }

  org.get('/vulnerabilities/:id', { config: { permission: 'read' } }, async (request, reply) => {
    const analysed = (request.query as { analysed?: string }).analysed;
    const notice =
      analysed && /^\d{1,6}$/.test(analysed) ? `Analysis saved for ${analysed} product${analysed === '1' ? '' : 's'}.` : undefined;
    return vulnerabilityPage(request, reply, { notice });
  });

  // VEX of one release of a product, as a download (the service behind `cra-admin vex export`).
  org.get('/products/:sku/releases/:version/vex/:format', { config: { permission: 'read' } }, async (request, reply) => {
    const { sku, version, format } = request.params as { sku: string; version: string; format: string };
    const download = VEX_DOWNLOADS[format];
    if (!download || !Object.hasOwn(VEX_DOWNLOADS, format)) throw new AppError('not_found', 'no such format');
    const doc = await deps.vulns.vexExport(orgSlug(request), sku, format, version);
    const name = download.name(sku, version, doc).replace(/[^A-Za-z0-9._+-]/g, '_');
    return reply
      .type(download.type)
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(`${JSON.stringify(doc, null, 2)}\n`);
  });

  org.post('/vulnerabilities/:id/analysis', { config: { permission: 'analysis' } }, async (request, reply) => {
    // The vulnerability first: one that does not exist answers 404, whatever the form says.
    const { vulnerability: key } = await deps.vulns.show((request.params as { id: string }).id);
    const form = parseForm(AnalysisForm, request.body);
    if (!form.ok) return vulnerabilityPage(request, reply, { errors: form.errors, values: form.values }, 400);
    const value = form.value;
    let until: Date | undefined;
    if (value.until) {
      const day = new Date(`${value.until}T00:00:00Z`);
      if (Number.isNaN(day.getTime()) || !value.until.startsWith(day.toISOString().slice(0, 10)))
        return vulnerabilityPage(request, reply, { errors: { until: 'That day does not exist.' }, values: value }, 400);
      // The rule holds through the day given (UTC).
      until = new Date(day.getTime() + 86_400_000);
      if (until.getTime() <= deps.clock().getTime())
        return vulnerabilityPage(
          request,
          reply,
          { errors: { until: 'That day has passed: give today or a later day.' }, values: value },
          400,
        );
    }
    let saved: { products: string[] };
    try {
      saved = await deps.vulns.analyse({
        org: orgSlug(request),
        sku: value.all_products ? undefined : value.sku || undefined,
        allProducts: value.all_products === 'yes',
        vuln: key,
        state: value.state,
        justification: value.justification || undefined,
        responses: value.responses,
        detail: value.detail || undefined,
        future: value.future === 'yes',
        until,
        actor: actorOf(request.viewer!),
      });
    } catch (error) {
      return vulnerabilityPage(request, reply, { errors: analysisErrors(error), values: value }, 400);
    }
    const back = value.all_products ? '' : `product=${encodeURIComponent(value.sku ?? '')}&`;
    return redirect(
      request,
      reply,
      `${base(request)}/vulnerabilities/${encodeURIComponent(key)}?${back}analysed=${saved.products.length}#analysis`,
    );
  });
}
