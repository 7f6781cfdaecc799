import type { Database } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { componentsRepo, type StoredComponent } from '../store/components.repo.js';
import { idsAmong } from '../store/id-list.js';
import { portfolioRepo } from './portfolio.repo.js';

export interface ComponentRef {
  name: string;
  version: string | null;
  purl: string | null;
}

export interface SearchHit {
  sku: string;
  release_version: string;
  revision: number;
  sbom_id: string;
  component: ComponentRef;
}

export interface SbomDiff {
  added: ComponentRef[];
  removed: ComponentRef[];
  changed: Array<{ name: string; purl: string | null; from_version: string | null; to_version: string | null }>;
}

const ref = (c: StoredComponent | ComponentRef): ComponentRef => ({ name: c.name, version: c.version, purl: c.purl });

/** What identifies a component across versions: its purl without version, qualifiers and subpath, else its name. */
function identity(c: ComponentRef): string {
  if (c.purl) return `purl:${c.purl.replace(/[?#].*$/, '').replace(/@[^/@]*$/, '')}`;
  return `name:${c.name}`;
}

const byName = (a: ComponentRef, b: ComponentRef) =>
  a.name.localeCompare(b.name) || (a.version ?? '').localeCompare(b.version ?? '') || (a.purl ?? '').localeCompare(b.purl ?? '');

export function createPortfolioService(
  database: Database,
  orgs: { requireOrg(slug: string): Promise<{ id: string }> },
  products: { requireProduct(orgId: string, sku: string): Promise<{ id: string }> },
) {
  return {
    /**
     * Which products, releases and revisions contain the component: one hit per revision and
     * matching component, by SKU and release, latest revision of each release first.
     */
    async searchComponents(orgSlug: string, match: { purl: string } | { name: string; version?: string }): Promise<SearchHit[]> {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      const found = await portfolioRepo.matching(database.db, orgId, match);
      if (found.length === 0) return [];
      const wanted = new Map(found.map((c) => [Number(c.id), ref(c)]));
      const hits: Array<SearchHit & { ingested_at: string }> = [];
      // A revision is one packed list: scanning them all costs ~1 ms per 100,000 references.
      const wantedIds = new Set(wanted.keys());
      for (const r of await portfolioRepo.revisions(database.db, orgId)) {
        for (const id of idsAmong(r.component_ids, wantedIds)) {
          hits.push({
            sku: r.sku,
            release_version: r.release_version,
            revision: r.revision,
            sbom_id: r.sbom_id,
            component: wanted.get(id)!,
            ingested_at: r.ingested_at,
          });
        }
      }
      hits.sort(
        (a, b) =>
          a.sku.localeCompare(b.sku) ||
          a.release_version.localeCompare(b.release_version) ||
          b.revision - a.revision ||
          byName(a.component, b.component),
      );
      return hits.map(({ ingested_at: _, ...hit }) => hit);
    },

    /** Components added, removed and changed in version from revision `from` to `to` of one release. */
    async diffRevisions(
      orgSlug: string,
      sku: string,
      options: { release?: string; from: number; to: number },
    ): Promise<SbomDiff & { release_version: string }> {
      const { id: orgId } = await orgs.requireOrg(orgSlug);
      const product = await products.requireProduct(orgId, sku);
      const release = await portfolioRepo.release(database.db, product.id, options.release);
      if (!release) {
        throw new AppError(
          'not_found',
          options.release === undefined ? `product "${sku}" has no SBOM` : `product "${sku}" has no SBOM for release ${options.release}`,
        );
      }
      const revisionIds = async (n: number) => {
        const revision = await portfolioRepo.revision(database.db, release.id, n);
        if (!revision) throw new AppError('not_found', `release ${release.version} of "${sku}" has no revision ${n}`);
        return componentsRepo.memberIds(database.db, orgId, revision.id);
      };
      const [fromIds, toIds] = [new Set(await revisionIds(options.from)), new Set(await revisionIds(options.to))];
      const onlyFrom = [...fromIds].filter((id) => !toIds.has(id));
      const onlyTo = [...toIds].filter((id) => !fromIds.has(id));
      const rows = await componentsRepo.byIds(database.db, orgId, [...onlyFrom, ...onlyTo]);
      return {
        release_version: release.version,
        ...diffComponents(
          onlyFrom.map((id) => ref(rows.get(id)!)),
          onlyTo.map((id) => ref(rows.get(id)!)),
        ),
      };
    },
  };
}

/**
 * Components only in the old revision and only in the new one → the diff. Grouped by identity:
 * one version on each side that differ is a change; otherwise what only one side lists is
 * added or removed (a component that changed in nothing but licence or bom-ref is neither).
 */
export function diffComponents(before: ComponentRef[], after: ComponentRef[]): SbomDiff {
  const groups = new Map<string, { before: ComponentRef[]; after: ComponentRef[] }>();
  const group = (c: ComponentRef) => {
    let g = groups.get(identity(c));
    if (!g) {
      g = { before: [], after: [] };
      groups.set(identity(c), g);
    }
    return g;
  };
  for (const c of before) group(c).before.push(c);
  for (const c of after) group(c).after.push(c);
  const diff: SbomDiff = { added: [], removed: [], changed: [] };
  for (const g of groups.values()) {
    const versionsBefore = new Set(g.before.map((c) => c.version));
    const versionsAfter = new Set(g.after.map((c) => c.version));
    if (versionsBefore.size === 1 && versionsAfter.size === 1 && g.before[0]!.version !== g.after[0]!.version) {
      const [b, a] = [g.before[0]!, g.after[0]!];
      diff.changed.push({ name: a.name, purl: a.purl, from_version: b.version, to_version: a.version });
      continue;
    }
    for (const c of dedupe(g.before)) if (!versionsAfter.has(c.version)) diff.removed.push(c);
    for (const c of dedupe(g.after)) if (!versionsBefore.has(c.version)) diff.added.push(c);
  }
  diff.added.sort(byName);
  diff.removed.sort(byName);
  diff.changed.sort((x, y) => x.name.localeCompare(y.name));
  return diff;
}

function dedupe(list: ComponentRef[]): ComponentRef[] {
  const seen = new Set<string>();
  return list.filter((c) => {
    const key = `${c.name}\u0000${c.version ?? ''}\u0000${c.purl ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type PortfolioService = ReturnType<typeof createPortfolioService>;
