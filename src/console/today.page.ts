import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ConsoleDeps } from './context.js';
import { apiBaseUrl, EXAMPLE_SKU, firstSteps } from './first-steps.js';
import { stageClocks } from './format.js';
import { orgSlug, render } from './render.js';
import { conformanceBadge } from './conformance.page.js';
import { PROFILES } from '../sbom/conformance/conformance.js';

// Today: what needs doing now. The clocks section re-renders in place every 30 s (htmx) and is
// a plain part of the page without JavaScript.

/** Open cases shown on Today, the most urgent first. */
export const TODAY_CASES = 25;
/** Exploited findings shown on Today; the Vulnerabilities page, filtered the same way, lists them all. */
export const TODAY_EXPLOITED = 10;
/** Products whose newest SBOM does not conform shown on Today; the Products page, filtered, lists them all. */
export const TODAY_NOT_CONFORMING = 10;
/** What Today's exploited findings are: on products on the market, still to act on (the Vulnerabilities page's filter). */
export const EXPLOITED_FILTER = { exploited: true, onMarket: true, state: 'open' } as const;

export function registerTodayPage(org: FastifyInstance, deps: ConsoleDeps): void {
  async function clocks(request: FastifyRequest) {
    const cases = (await deps.cases.listCases(orgSlug(request))).filter((c) => c.status === 'open');
    const now = deps.clock();
    const rows = cases.map((c) => ({ ...c, ...stageClocks(c.stages, now) }));
    // The most urgent first: the earliest time still to meet (overdue ones lead); cases with no
    // running clock last. Only the first TODAY_CASES: the Cases page lists them all.
    const next = (row: (typeof rows)[number]) =>
      Math.min(...[row.earlyWarning, row.notification, ...row.later.clocks].map((d) => (d ? Date.parse(d.due) : Number.POSITIVE_INFINITY)));
    const urgent = rows
      .map((row) => ({ row, next: next(row) }))
      .sort((a, b) => a.next - b.next || a.row.incident_number - b.row.incident_number)
      .slice(0, TODAY_CASES)
      .map(({ row }) => row);
    return { cases: urgent, more: rows.length - urgent.length, now: now.toISOString() };
  }

  /** Until the organisation has a product, a key and an SBOM: what to do next, with the exact commands. */
  async function firstStepsOf(request: FastifyRequest) {
    const slug = orgSlug(request);
    const [products, keys] = await Promise.all([deps.products.listProducts(slug), deps.keys.listKeys(slug)]);
    const now = deps.clock().toISOString();
    const done = {
      product: products.length > 0,
      key: keys.some((k) => !k.revoked_at && !(k.expires_at && k.expires_at <= now)),
      sbom: products.some((p) => p.sbom_status !== 'none'),
    };
    if (done.product && done.key && done.sbom) return null;
    return { done, commands: firstSteps(apiBaseUrl(request, deps.config), slug, products[0]?.sku ?? EXAMPLE_SKU) };
  }

  /** Active products whose newest SBOM does not conform to the organisation's profile (sbom-conformance.md, Where it shows). */
  async function notConforming(request: FastifyRequest) {
    const slug = orgSlug(request);
    const [products, latest] = await Promise.all([deps.products.listProducts(slug), deps.sbomConformance.latestByProduct(slug)]);
    const base = `/console/o/${encodeURIComponent(slug)}/products`;
    const rows = products.flatMap((p) => {
      const newest = latest.byProduct.get(p.id);
      if (p.status !== 'active' || !newest?.summary || newest.summary.conforms) return [];
      const href = `${base}/${encodeURIComponent(p.sku)}/releases/${encodeURIComponent(newest.release_version)}/revisions/${newest.revision}/conformance`;
      return [
        {
          sku: p.sku,
          name: p.name,
          release: newest.release_version,
          revision: newest.revision,
          badge: conformanceBadge(newest.summary),
          missing: newest.summary.missing_required,
          href,
        },
      ];
    });
    return { profile: PROFILES[latest.profile].title, count: rows.length, rows: rows.slice(0, TODAY_NOT_CONFORMING) };
  }

  org.get('/today', { config: { permission: 'read' } }, async (request, reply) => {
    const slug = orgSlug(request);
    const [open, signals, score, start, exploited, sboms] = await Promise.all([
      clocks(request),
      deps.incidents.listSignals(slug),
      deps.compliance.explainScore(slug),
      firstStepsOf(request),
      deps.vulns.listFindings(slug, EXPLOITED_FILTER, { offset: 0, limit: TODAY_EXPLOITED }),
      notConforming(request),
    ]);
    const awaiting = signals.filter((s) => s.status === 'INCOMING');
    return render(request, reply, 'today', {
      title: 'Today',
      ...open,
      signals: awaiting,
      score: score.score,
      breakdown: score.breakdown,
      start,
      exploited,
      sboms,
    });
  });

  org.get('/today/clocks', { config: { permission: 'read' } }, async (request, reply) =>
    render(request, reply, 'today-clocks', await clocks(request)),
  );
}
