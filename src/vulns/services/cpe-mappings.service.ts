import type { Database } from '../../db/index.js';
import type { ProductRow } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import { appendRegistryEntry } from '../../registry/append-entry.js';
import { decodeIds } from '../../sbom/store/id-list.js';
import { type Clock, iso, systemClock } from '../../shared/time.js';
import type { CpeMatcher } from '../engine/cpe-matcher.js';
import type { FindingsEngine } from '../engine/findings-engine.js';
import { type CpeCandidate, candidatesFor, nvdProductIndex } from '../match/cpe/candidates.js';
import { parseCpe } from '../match/cpe/parse.js';
import { normaliseProductName } from '../match/cpe/vendor-table.js';
import { formatCpe, textOf } from '../match/cpe/wfn.js';
import { readPurl } from '../match/read-purl.js';
import { cpeMatchingRepo } from '../store/cpe-matching.repo.js';
import { findingsRepo } from '../store/findings.repo.js';

// Candidates and confirmed mappings (firmware.md, "Candidates for components without an
// identifier"): the components named by name and version alone, each with candidate CPEs; a
// person confirms one for a component name, organisation-wide (a registry entry; undone the same
// way), and every revision of every product holding a component of that name is matched again
// through it (confidence `confirmed`). For cra-admin now, the console later.

export interface ComponentCandidates {
  name: string;
  version: string | null;
  /** The SKUs whose latest revisions hold it. */
  products: string[];
  candidates: CpeCandidate[];
}

export interface CpeMappingsDeps {
  orgs: { requireOrg(slug: string): Promise<{ id: string }> };
  products: { requireProduct(orgId: string, sku: string): Promise<ProductRow> };
  cpe: CpeMatcher;
  findings: Pick<FindingsEngine, 'refreshProducts'>;
}

function invalidCpe(message: string): AppError {
  return new AppError('validation_failed', message, [{ path: 'cpe', message }]);
}

function invalidName(message: string): AppError {
  return new AppError('validation_failed', message, [{ path: 'name', message }]);
}

/** A CPE a person may confirm: it parses, and names its vendor and product (the version may be ANY: the component's own). */
function confirmableCpe(text: string): string {
  const parsed = parseCpe(text.trim(), 'lenient');
  if (!parsed.ok) throw invalidCpe(`the CPE does not parse: ${parsed.error}`);
  if (textOf(parsed.wfn.vendor) === null || textOf(parsed.wfn.product) === null)
    throw invalidCpe('the CPE must name its vendor and product (cpe:2.3:a:VENDOR:PRODUCT:*:…)');
  return formatCpe(parsed.wfn);
}

export function createCpeMappingsService(database: Database, deps: CpeMappingsDeps, options: { clock?: Clock } = {}) {
  const clock = options.clock ?? systemClock;
  const { db, dialect } = database;

  /** Forgets what was read of the organisation's components of that name, reads them again, refreshes their products. */
  async function rematchName(orgId: string, name: string): Promise<number> {
    const ids = (await cpeMatchingRepo.componentsLike(db, orgId, name))
      .filter((c) => normaliseProductName(c.name) === name)
      .map((c) => Number(c.id));
    if (ids.length === 0) return 0;
    await cpeMatchingRepo.forgetReadings(database, ids);
    await deps.cpe.readComponents(ids);
    await deps.findings.refreshProducts(await findingsRepo.productsHolding(db, orgId, new Set(ids)));
    return ids.length;
  }

  return {
    /** The components of the latest revisions (of one product, or all) with neither purl nor CPE nor mapping, with their candidates. */
    async candidates(orgSlug: string, sku?: string): Promise<ComponentCandidates[]> {
      const { id: orgId } = await deps.orgs.requireOrg(orgSlug);
      const list = sku !== undefined ? [await deps.products.requireProduct(orgId, sku)] : await findingsRepo.productsOf(db, orgId);
      const byComponent = new Map<number, Set<string>>();
      for (const product of list)
        for (const revision of await findingsRepo.latestRevisions(db, product.id))
          for (const id of decodeIds(revision.component_ids)) byComponent.set(id, (byComponent.get(id) ?? new Set()).add(product.sku));
      const all = [...byComponent.keys()];
      const rows = [];
      for (let i = 0; i < all.length; i += 500) rows.push(...(await cpeMatchingRepo.identifiersOf(db, dialect, all.slice(i, i + 500))));
      const mapped = new Set((await cpeMatchingRepo.mappingsOfOrg(db, orgId)).map((m) => m.name));
      const bare = rows.filter(
        (r) =>
          r.cpes === null && !mapped.has(normaliseProductName(r.name)) && ['no_purl', 'invalid_purl'].includes(readPurl(r.purl).status),
      );
      if (bare.length === 0) return [];
      const index = nvdProductIndex(await cpeMatchingRepo.nvdProductKeys(db));
      const out = new Map<string, ComponentCandidates>();
      for (const row of bare) {
        const key = `${row.name}\u0000${row.version ?? ''}`;
        const entry = out.get(key) ?? { name: row.name, version: row.version, products: [], candidates: candidatesFor(row.name, index) };
        entry.products = [...new Set([...entry.products, ...byComponent.get(row.id)!])].sort();
        out.set(key, entry);
      }
      return [...out.values()].sort((a, b) => a.name.localeCompare(b.name) || (a.version ?? '').localeCompare(b.version ?? ''));
    },

    /** The organisation's confirmed mappings. */
    async mappings(orgSlug: string) {
      const { id: orgId } = await deps.orgs.requireOrg(orgSlug);
      return cpeMatchingRepo.mappingsOfOrg(db, orgId);
    },

    /** Confirms `cpe` for the component name, organisation-wide; a registry entry; the components of that name matched again. */
    async map(input: { org: string; name: string; cpe: string; actor: string }) {
      const { id: orgId } = await deps.orgs.requireOrg(input.org);
      const name = normaliseProductName(input.name);
      if (name === '') throw invalidName('give the component name');
      const cpe = confirmableCpe(input.cpe);
      const at = iso(clock());
      const added = await database.transaction(async (trx) => {
        const fresh = await cpeMatchingRepo.addMapping(trx, { org_id: orgId, name, cpe, created_at: at, created_by: input.actor });
        if (fresh)
          await appendRegistryEntry(
            trx,
            orgId,
            { actor: input.actor, action: 'component.cpe_mapped', subject: name, details: { name, cpe } },
            at,
          );
        return fresh;
      });
      const components = added ? await rematchName(orgId, name) : 0;
      return { name, cpe, added, components };
    },

    /** Undoes a mapping of the name (`cpe` needed when it has several); a registry entry; its components matched again. */
    async unmap(input: { org: string; name: string; cpe?: string; actor: string }) {
      const { id: orgId } = await deps.orgs.requireOrg(input.org);
      const name = normaliseProductName(input.name);
      const held = (await cpeMatchingRepo.mappingsOfOrg(db, orgId)).filter((m) => m.name === name).map((m) => m.cpe);
      if (held.length === 0) throw new AppError('not_found', `no CPE is mapped to the component name "${name}"`);
      let cpe: string;
      if (input.cpe !== undefined) {
        cpe = confirmableCpe(input.cpe);
        if (!held.includes(cpe)) throw new AppError('not_found', `${cpe} is not mapped to "${name}" (mapped: ${held.join(', ')})`);
      } else if (held.length > 1) {
        throw invalidCpe(`several CPEs are mapped to "${name}": give the one to remove (${held.join(', ')})`);
      } else cpe = held[0]!;
      const at = iso(clock());
      await database.transaction(async (trx) => {
        await cpeMatchingRepo.removeMapping(trx, orgId, name, cpe);
        await appendRegistryEntry(
          trx,
          orgId,
          { actor: input.actor, action: 'component.cpe_unmapped', subject: name, details: { name, cpe } },
          at,
        );
      });
      return { name, cpe, components: await rematchName(orgId, name) };
    },
  };
}

export type CpeMappingsService = ReturnType<typeof createCpeMappingsService>;
