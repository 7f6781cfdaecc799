import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/index.js';
import type { ProductRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import { appendRegistryEntry } from '../../registry/append-entry.js';
import { unstorableReason } from '../../shared/storable-text.js';
import { type Clock, iso, systemClock } from '../../shared/time.js';
import { analysisRepo } from '../store/analysis.repo.js';
import { ANALYSIS_DETAIL_MAX, ANALYSIS_STATES, JUSTIFICATIONS, RESPONSES } from '../vulns.schemas.js';
import { vulnerabilityKey } from './vulnerability-key.js';

// The analysis of a vulnerability on a product (vulnerabilities.md, Analysis): CycloneDX's VEX
// vocabulary, on one product or every product that has the finding, and optionally a rule for
// findings that appear later; every change a registry entry with its actor.

export interface AnalyseInput {
  org: string;
  sku?: string;
  allProducts?: boolean;
  vuln: string;
  state: string;
  justification?: string;
  responses?: string[];
  detail?: string;
  /** Also for findings of this vulnerability (and component) that appear later. */
  future?: boolean;
  until?: Date;
  actor: string;
}

/**
 * A rule of the analysis broken, on the input field it concerns: each door says it in its own
 * words (the CLI names its option, the console marks its form field), from the field.
 */
function invalid(field: keyof AnalyseInput, message: string): AppError {
  return new AppError('validation_failed', message, [{ path: field, message }]);
}

export interface AnalysisDeps {
  orgs: { requireOrg(slug: string): Promise<{ id: string }> };
  products: { requireProduct(orgId: string, sku: string): Promise<ProductRow> };
}

export function createAnalysisService(database: Database, { orgs, products }: AnalysisDeps, options: { clock?: Clock } = {}) {
  const clock = options.clock ?? systemClock;
  const { db } = database;

  /** The input's analysis, checked: the first rule it breaks is a validation error on its field. */
  function check(input: AnalyseInput): string[] {
    if (!(ANALYSIS_STATES as readonly string[]).includes(input.state)) {
      throw invalid('state', `state must be one of ${ANALYSIS_STATES.join(', ')}`);
    }
    if (input.justification !== undefined && !(JUSTIFICATIONS as readonly string[]).includes(input.justification)) {
      throw invalid('justification', `justification must be one of ${JUSTIFICATIONS.join(', ')}`);
    }
    if (input.justification !== undefined && input.state !== 'not_affected') {
      throw invalid('justification', 'a justification says why a product is not_affected: give it with the state not_affected');
    }
    const responses = [...new Set(input.responses ?? [])];
    const bad = responses.filter((r) => !(RESPONSES as readonly string[]).includes(r));
    if (bad.length) throw invalid('responses', `responses must be among ${RESPONSES.join(', ')} (not ${bad.join(', ')})`);
    const unstorable = input.detail === undefined ? null : unstorableReason(input.detail);
    if (unstorable) throw invalid('detail', `detail ${unstorable}`);
    if (input.detail !== undefined && input.detail.length > ANALYSIS_DETAIL_MAX)
      throw invalid('detail', `detail may be at most ${ANALYSIS_DETAIL_MAX.toLocaleString('en')} characters`);
    if ((input.sku === undefined) === !input.allProducts) throw invalid('sku', 'give either a product or all products');
    if (input.until !== undefined && !input.future) throw invalid('until', 'until bounds a rule for later findings: give it with future');
    return responses;
  }

  /** The product of the analysis: one the organisation does not have is the `sku` field's error. */
  async function productOf(orgId: string, sku: string): Promise<ProductRow> {
    return products.requireProduct(orgId, sku).catch((error: unknown) => {
      throw error instanceof AppError ? new AppError(error.code, error.message, [{ path: 'sku', message: error.message }]) : error;
    });
  }

  return {
    /** Sets the analysis of a vulnerability on one product or all that have it; each change a registry entry. */
    async analyse(input: AnalyseInput): Promise<{ vulnerability: string; products: string[]; rule: string | null }> {
      const { id: orgId } = await orgs.requireOrg(input.org);
      const responses = check(input);
      const key = await vulnerabilityKey(db, input.vuln);
      const live = await analysisRepo.liveFindingsOf(db, orgId, key);
      let targets = live;
      if (input.sku !== undefined) {
        const product = await productOf(orgId, input.sku);
        targets = live.filter((f) => f.id === product.id);
        if (targets.length === 0 && !input.future) {
          const message = `${input.sku} has no finding of ${key}`;
          throw new AppError('not_found', message, [{ path: 'sku', message }]);
        }
      }
      const at = iso(clock());
      const productIds = [...new Map(targets.map((t) => [t.id, t.sku])).entries()];
      let rule: string | null = null;
      await database.transaction(async (trx) => {
        const analysis = {
          state: input.state,
          justification: input.justification ?? null,
          responses: JSON.stringify(responses),
          detail: input.detail ?? null,
        };
        for (const [productId, sku] of productIds) {
          await analysisRepo.save(trx, {
            org_id: orgId,
            product_id: productId,
            vuln_key: key,
            ...analysis,
            updated_at: at,
            updated_by: input.actor,
          });
          await appendRegistryEntry(
            trx,
            orgId,
            {
              actor: input.actor,
              action: 'finding.analysed',
              subject: `${sku} ${key}`,
              details: { vulnerability: key, product_sku: sku, state: input.state, justification: analysis.justification, responses },
            },
            at,
          );
        }
        if (input.future) {
          rule = randomUUID();
          // For one product: the components it has the finding in; for all: any component.
          const purls = input.sku !== undefined ? [...new Set(targets.map((t) => t.purl))] : [null];
          const purl = purls.length === 1 ? purls[0]! : null;
          await analysisRepo.insertRule(trx, {
            id: rule,
            org_id: orgId,
            vuln_key: key,
            purl,
            ...analysis,
            until: input.until ? iso(input.until) : null,
            created_at: at,
            created_by: input.actor,
          });
          await appendRegistryEntry(
            trx,
            orgId,
            {
              actor: input.actor,
              action: 'finding.rule_added',
              subject: key,
              details: { vulnerability: key, rule, purl, state: input.state, until: input.until ? iso(input.until) : null },
            },
            at,
          );
        }
      });
      return { vulnerability: key, products: productIds.map(([, sku]) => sku), rule };
    },
  };
}

export type AnalysisService = ReturnType<typeof createAnalysisService>;
