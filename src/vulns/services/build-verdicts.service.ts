import type { Database } from '../../db/index.js';
import { appendRegistryEntry } from '../../registry/append-entry.js';
import { type Clock, iso, systemClock } from '../../shared/time.js';
import { analysisRepo } from '../store/analysis.repo.js';
import { groupsNaming } from '../store/vulnerabilities.repo.js';
import { type AnyBuildVerdict, buildAnalyses } from '../vex/build-verdicts.js';

// The build system's own verdicts set the analyses of a product (firmware.md, "The build system's
// own verdicts"). The analysis is per product and vulnerability (finding_analyses), so it holds
// for findings that appear later too: matching runs after ingest, and a CVE found by CPE may come
// with the next NVD import. A person's analysis is never overwritten by a build: only a build's
// earlier verdict is.

/** The actor of every analysis a build sets starts so; any other actor (a person, a person's rule) is a person's. */
export const BUILD_ACTOR = 'build:';

export const isBuildActor = (actor: string) => actor.startsWith(BUILD_ACTOR);

const CVE = /^CVE-\d{4}-\d{4,}$/;

export interface BuildVerdictsResult {
  /** Analyses set or changed. */
  applied: Array<{ vulnerability: string; state: string }>;
  /** Left as they were: a person's analysis stands. */
  kept: Array<{ vulnerability: string; state: string; by: string }>;
  /** Verdicts on ids no record names and that are no CVE id. */
  unmatched: string[];
}

export function createBuildVerdictsService(database: Database, options: { clock?: Clock } = {}) {
  const clock = options.clock ?? systemClock;

  /** The key of the vulnerability an id names; a CVE id no record names yet is its own key (the NVD's records are keyed so). */
  async function keyOf(id: string): Promise<string | null> {
    const [key] = await groupsNaming(database.db, [id]);
    return key ?? (CVE.test(id) ? id : null);
  }

  return {
    /**
     * Sets the analyses of the build's verdicts on one product, in one transaction; each change a
     * registry entry by `actor` (which starts with BUILD_ACTOR). `about` goes into each entry
     * (the SBOM revision, or the file imported).
     */
    async applyBuildVerdicts(
      product: { orgId: string; productId: string; sku: string },
      verdicts: readonly AnyBuildVerdict[],
      actor: string,
      about: Record<string, unknown>,
    ): Promise<BuildVerdictsResult> {
      if (!isBuildActor(actor)) throw new Error(`a build's actor starts with "${BUILD_ACTOR}"`);
      const result: BuildVerdictsResult = { applied: [], kept: [], unmatched: [] };
      const analyses = buildAnalyses(verdicts);
      if (analyses.length === 0) return result;
      const keyed: Array<{ key: string; analysis: (typeof analyses)[number] }> = [];
      for (const analysis of analyses) {
        const key = await keyOf(analysis.vulnerability);
        if (key === null) result.unmatched.push(analysis.vulnerability);
        else keyed.push({ key, analysis });
      }
      const at = iso(clock());
      await database.transaction(async (trx) => {
        for (const { key, analysis } of keyed) {
          const before = await analysisRepo.analysis(trx, product.productId, key);
          if (before && !isBuildActor(before.updated_by)) {
            result.kept.push({ vulnerability: key, state: before.state, by: before.updated_by });
            continue;
          }
          const responses = JSON.stringify(analysis.responses);
          const same =
            before &&
            before.state === analysis.state &&
            before.justification === analysis.justification &&
            before.responses === responses &&
            before.detail === analysis.detail;
          if (same) continue;
          await analysisRepo.save(trx, {
            org_id: product.orgId,
            product_id: product.productId,
            vuln_key: key,
            state: analysis.state,
            justification: analysis.justification,
            responses,
            detail: analysis.detail,
            updated_at: at,
            updated_by: actor,
          });
          await appendRegistryEntry(
            trx,
            product.orgId,
            {
              actor,
              action: 'finding.analysed',
              subject: `${product.sku} ${key}`,
              details: {
                vulnerability: key,
                product_sku: product.sku,
                state: analysis.state,
                justification: analysis.justification,
                responses: analysis.responses,
                ...about,
              },
            },
            at,
          );
          result.applied.push({ vulnerability: key, state: analysis.state });
        }
      });
      return result;
    },
  };
}

export type BuildVerdictsService = ReturnType<typeof createBuildVerdictsService>;
