import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { CONFORMANCE_PROFILES, isConformanceProfile, PROFILES } from '../sbom/conformance/conformance.js';
import type { ConformanceSummary } from '../sbom/portfolio/conformance.service.js';
import type { ConsoleDeps } from './context.js';
import { orgSlug, render } from './render.js';

// SBOM conformance in the console (sbom-conformance.md, Where it shows): a badge per revision and
// per product (its newest revision), the report one click away, the Products page's filter. The
// organisation's policy is set on the Organisation page (organisation.page.ts).

/** A badge's words and tone: conforms, n fields missing, below the format floor, or no report kept. */
export interface Badge {
  text: string;
  tone: 'ok' | 'warn' | 'none';
}

export function conformanceBadge(summary: ConformanceSummary | undefined): Badge {
  if (!summary) return { text: 'no report', tone: 'none' };
  if (summary.conforms) return { text: 'conforms', tone: 'ok' };
  if (summary.findings.includes('format_below_floor')) return { text: 'below the format floor', tone: 'warn' };
  const n = summary.missing_required.length;
  if (n > 0) return { text: `${n} field${n === 1 ? '' : 's'} missing`, tone: 'warn' };
  return { text: summary.findings.map((f) => f.replaceAll('_', ' ')).join(', '), tone: 'warn' };
}

/** The Products page's filter by the newest revision's conformance. */
export const CONFORMANCE_FILTERS = ['conforms', 'not-conforming', 'no-sbom'] as const;
export type ConformanceFilter = (typeof CONFORMANCE_FILTERS)[number];

export function conformanceFilterOf(request: FastifyRequest): ConformanceFilter | undefined {
  const value = (request.query as { conformance?: string }).conformance;
  return (CONFORMANCE_FILTERS as readonly string[]).includes(value ?? '') ? (value as ConformanceFilter) : undefined;
}

/** Whether a product with this newest revision (none: no SBOM) passes the filter. */
export function passesConformanceFilter(
  filter: ConformanceFilter | undefined,
  latest: { summary: ConformanceSummary | undefined } | undefined,
): boolean {
  if (filter === undefined) return true;
  if (filter === 'no-sbom') return latest === undefined;
  if (latest?.summary === undefined) return false;
  return filter === 'conforms' ? latest.summary.conforms : !latest.summary.conforms;
}

export function registerConformancePages(org: FastifyInstance, deps: ConsoleDeps): void {
  org.get(
    '/products/:sku/releases/:version/revisions/:revision/conformance',
    { config: { permission: 'read' } },
    async (request, reply) => {
      const params = request.params as { sku: string; version: string; revision: string };
      if (!/^[1-9]\d{0,8}$/.test(params.revision)) throw new AppError('not_found', 'no such revision');
      const asked = (request.query as { profile?: string }).profile;
      const profile = asked !== undefined && isConformanceProfile(asked) ? asked : undefined;
      const { sku, revision, report } = await deps.sbomConformance.report(orgSlug(request), params.sku, {
        release: params.version,
        revision: Number(params.revision),
        profile,
      });
      const productBase = `/console/o/${encodeURIComponent(orgSlug(request))}/products/${encodeURIComponent(sku)}`;
      const revisionUrl = `${productBase}/releases/${encodeURIComponent(revision.release_version)}/revisions/${revision.revision}`;
      return render(request, reply, 'conformance', {
        title: `${sku} ${revision.release_version} revision ${revision.revision}: conformance`,
        section: 'products',
        sku,
        revision,
        report,
        profileTitle: PROFILES[report.profile].title,
        profiles: CONFORMANCE_PROFILES.map((id) => ({ id, title: PROFILES[id].title, current: id === report.profile })),
        productBase,
        revisionUrl,
      });
    },
  );
}
