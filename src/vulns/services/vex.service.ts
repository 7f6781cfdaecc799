import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/index.js';
import type { ProductRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import { type Clock, iso, systemClock } from '../../shared/time.js';
import { findingsRepo } from '../store/findings.repo.js';
import { VEX_FORMATS, type VexFormat, type VexStatement, vexDocument } from '../vex/export.js';
import { spdx3Verdicts } from '../../sbom/parse/build-verdicts.js';
import { type AnyBuildVerdict, cveSummaryVerdicts, isCveSummary } from '../vex/build-verdicts.js';
import { VexDocumentError, vexStatements } from '../vex/import.js';
import { RESPONSES } from '../vulns.schemas.js';
import type { AnalysisService } from './analysis.service.js';
import type { FindingsService } from './findings.service.js';
import { BUILD_ACTOR, type BuildVerdictsService } from './build-verdicts.service.js';
import { vulnerabilityKey } from './vulnerability-key.js';

/** A build's own file of verdicts: Yocto's cve-check summary, or an SPDX 3 document with VEX relationships. */
function buildFileOf(doc: unknown): { format: 'cve-check' | 'spdx3'; name: string; verdicts: AnyBuildVerdict[] } | null {
  if (isCveSummary(doc)) return { format: 'cve-check', name: 'cve-check summary (cve-summary.json)', verdicts: cveSummaryVerdicts(doc) };
  const graph = (doc as { '@graph'?: unknown } | null)?.['@graph'];
  const context = (doc as { '@context'?: unknown } | null)?.['@context'];
  if (!Array.isArray(graph) || typeof context !== 'string' || !context.startsWith('https://spdx.org/rdf/3.')) return null;
  const nodes = graph.filter((n): n is Record<string, unknown> => n !== null && typeof n === 'object' && !Array.isArray(n));
  const byId = new Map(nodes.filter((n) => typeof n.spdxId === 'string').map((n) => [n.spdxId as string, n]));
  return { format: 'spdx3', name: 'SPDX 3 document', verdicts: spdx3Verdicts(nodes, byId) };
}

// VEX out and in (vulnerabilities.md): a release's findings with their analyses as a document,
// and the analyses a document states applied, statement by statement.

export interface VexDeps {
  orgs: {
    requireOrg(slug: string): Promise<{ id: string; slug: string; name: string; legal_name: string | null; contact_email: string | null }>;
  };
  products: { requireProduct(orgId: string, sku: string): Promise<ProductRow> };
  findings: Pick<FindingsService, 'listFindings'>;
  analysis: Pick<AnalysisService, 'analyse'>;
  buildVerdicts: Pick<BuildVerdictsService, 'applyBuildVerdicts'>;
}

/** What `vex import` is told of the product a build file is about (firmware.md, Readings). */
export interface VexImportTarget {
  sku?: string;
  release?: string;
}

export function createVexService(
  database: Database,
  { orgs, products, findings, analysis, buildVerdicts }: VexDeps,
  options: { clock?: Clock } = {},
) {
  const clock = options.clock ?? systemClock;
  const { db } = database;

  return {
    /**
     * The VEX document of one release of a product (default: the release that received the
     * latest SBOM): every vulnerability found in it, with its analysis.
     */
    async vexExport(orgSlug: string, sku: string, format: string, releaseVersion?: string): Promise<Record<string, unknown>> {
      if (!(VEX_FORMATS as readonly string[]).includes(format)) {
        const message = `format must be one of ${VEX_FORMATS.join(', ')}`;
        throw new AppError('validation_failed', message, [{ path: 'format', message }]);
      }
      const org = await orgs.requireOrg(orgSlug);
      const product = await products.requireProduct(org.id, sku);
      const latest = await findingsRepo.latestRevisions(db, product.id);
      const release = releaseVersion ?? [...latest].sort((a, b) => b.ingested_at.localeCompare(a.ingested_at))[0]?.release_version ?? null;
      if (release === null || !latest.some((r) => r.release_version === release)) {
        throw new AppError('not_found', release === null ? `${sku} has no SBOM` : `${sku} has no release "${release}"`);
      }
      const found = (await findings.listFindings(orgSlug, { sku })).findings.filter((f) => f.releases.includes(release));
      const byVuln = new Map<string, VexStatement>();
      for (const f of found) {
        const statement = byVuln.get(f.vulnerability) ?? {
          vulnerability: f.vulnerability,
          aliases: f.aliases,
          cve: f.cve,
          summary: f.summary,
          cvss: f.cvss,
          state: f.state,
          justification: f.justification,
          responses: f.responses,
          detail: f.detail,
          components: [],
        };
        byVuln.set(f.vulnerability, { ...statement, components: [...statement.components, f.component] });
      }
      return vexDocument(format as VexFormat, {
        orgSlug: org.slug,
        publisherName: org.legal_name ?? org.name,
        contactEmail: org.contact_email,
        sku: product.sku,
        productName: product.name,
        release,
        now: iso(clock()),
        documentId: randomUUID(),
        statements: [...byVuln.values()],
      });
    },

    /**
     * Sets the analyses a VEX document states (CycloneDX, CSAF or OpenVEX), each a registry
     * entry; statements that match no finding are listed with why, never dropped.
     */
    async vexImport(orgSlug: string, doc: unknown, actor: string, target: VexImportTarget = {}) {
      const org = await orgs.requireOrg(orgSlug);
      const build = buildFileOf(doc);
      if (build) {
        if (target.sku === undefined) {
          const message = `a ${build.name} names no product of the organisation: give the product's SKU (--sku, and --release if you like)`;
          throw new AppError('validation_failed', message, [{ path: 'sku', message }]);
        }
        const product = await products.requireProduct(org.id, target.sku);
        const result = await buildVerdicts.applyBuildVerdicts(
          { orgId: org.id, productId: product.id, sku: product.sku },
          build.verdicts,
          `${BUILD_ACTOR}${build.format} (vex import by ${actor})`,
          { source: build.format, release: target.release ?? null },
        );
        return {
          format: build.format,
          applied: result.applied.length,
          statements: result.applied.map((a) => ({ ...a, product: product.sku })),
          unmatched: [
            ...result.unmatched.map((id) => ({
              vulnerability: id,
              product: product.sku,
              reason: 'no vulnerability with this id or alias',
            })),
            ...result.kept.map((k) => ({
              vulnerability: k.vulnerability,
              product: product.sku,
              reason: `kept the analysis of ${k.by} (${k.state}): a build's verdict never replaces a person's`,
            })),
          ],
        };
      }
      if (target.sku !== undefined || target.release !== undefined) {
        const message = '--sku and --release are for build files that name no product (cve-summary.json, SPDX 3)';
        throw new AppError('validation_failed', message, [{ path: 'sku', message }]);
      }
      let read: ReturnType<typeof vexStatements>;
      try {
        read = vexStatements(doc);
      } catch (error) {
        if (error instanceof VexDocumentError) throw new AppError('validation_failed', error.message);
        throw error;
      }
      const applied: Array<{ vulnerability: string; product: string; state: string }> = [];
      const unmatched: Array<{ vulnerability: string; product: string; reason: string }> = [];
      const prefix = `pkg:generic/${encodeURIComponent(org.slug)}/`;
      for (const statement of read.statements) {
        let key: string | null = null;
        for (const id of statement.ids) {
          key = await vulnerabilityKey(db, id).catch(() => null);
          if (key) break;
        }
        const refs = statement.products.length ? statement.products : ['(none)'];
        for (const ref of refs) {
          const sku = ref.startsWith(prefix) ? decodeURIComponent(ref.slice(prefix.length).replace(/@.*$/, '')) : ref;
          if (!key) {
            unmatched.push({ vulnerability: statement.ids[0]!, product: ref, reason: 'no vulnerability with this id or alias' });
            continue;
          }
          const product = await products.requireProduct(org.id, sku).catch(() => null);
          if (!product) {
            unmatched.push({
              vulnerability: statement.ids[0]!,
              product: ref,
              reason: 'no product of the organisation with this identifier or SKU',
            });
            continue;
          }
          try {
            await analysis.analyse({
              org: org.slug,
              sku: product.sku,
              vuln: key,
              state: statement.state,
              justification: statement.state === 'not_affected' ? (statement.justification ?? undefined) : undefined,
              responses: statement.responses.filter((r) => (RESPONSES as readonly string[]).includes(r)),
              detail: statement.detail ?? undefined,
              actor,
            });
            applied.push({ vulnerability: key, product: product.sku, state: statement.state });
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            unmatched.push({ vulnerability: statement.ids[0]!, product: ref, reason: error.message });
          }
        }
      }
      return { format: read.format, applied: applied.length, statements: applied, unmatched };
    },
  };
}
