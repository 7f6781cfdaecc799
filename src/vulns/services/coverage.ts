import type { Database } from '../../db/index.js';
import type { ProductRow } from '../../db/schema.js';
import { decodeIds } from '../../sbom/store/id-list.js';
import { readingOf } from '../engine/cpe-matcher.js';
import { candidatesFor, type NvdProductIndex, nvdProductIndex } from '../match/cpe/candidates.js';
import { readPurl } from '../match/read-purl.js';
import { cpeMatchingRepo } from '../store/cpe-matching.repo.js';
import { feedsRepo } from '../store/feeds.repo.js';
import { findingsRepo } from '../store/findings.repo.js';
import type { CoverageView } from '../vulns.schemas.js';

// Coverage (firmware.md): each product's latest revisions' components, how each can be matched
// (by purl against OSV, by CPE against the NVD: a component may be both), and why the others
// cannot. A component without a CPE reason to name falls back on its purl's; one with neither
// purl nor CPE has no identifier, and may have candidate CPEs.

type Reason = keyof CoverageView['not_matchable'];

/** What a component's purl reading says when it cannot be matched by it (null when it can). */
function purlReason(status: string, ecosystemHeld: boolean): Reason | 'no_purl' | null {
  if (status === 'no_purl' || status === 'invalid_purl') return 'no_purl';
  if (status === 'ecosystem_not_covered' || !ecosystemHeld) return 'ecosystem_not_covered';
  if (status === 'no_version') return 'version_missing';
  return status === 'matchable' ? null : 'version_unparsable';
}

export async function coverageOf(database: Database, list: readonly ProductRow[]): Promise<CoverageView[]> {
  const { db, dialect } = database;
  const tallied: Array<{
    sku: string;
    components: Array<{ purl: { status: string; ecosystem: string }; cpe: { status: string; name: string } }>;
  }> = [];
  const ecosystems = new Set<string>();
  for (const product of list) {
    const ids = new Set<number>();
    for (const revision of await findingsRepo.latestRevisions(db, product.id))
      for (const id of decodeIds(revision.component_ids)) ids.add(id);
    const rows = [];
    for (let i = 0, all = [...ids]; i < all.length; i += 500)
      rows.push(...(await cpeMatchingRepo.identifiersOf(db, dialect, all.slice(i, i + 500))));
    const mappings = await cpeMatchingRepo.mappingsOf(
      db,
      rows.map((r) => r.org),
    );
    tallied.push({
      sku: product.sku,
      components: rows.map((row) => {
        const reading = readPurl(row.purl);
        const ecosystem = 'ecosystem' in reading && reading.ecosystem !== undefined ? reading.ecosystem : '';
        if (ecosystem) ecosystems.add(ecosystem);
        return {
          purl: { status: reading.status, ecosystem },
          cpe: { status: readingOf(row, mappings.get(row.org)).status, name: row.name },
        };
      }),
    });
  }
  const held = await feedsRepo.ecosystemsHeld(database, [...ecosystems]);
  let index: NvdProductIndex | null = null;
  const views: CoverageView[] = [];
  for (const { sku, components } of tallied) {
    const view: CoverageView = {
      sku,
      components: components.length,
      matchable: 0,
      matchable_by: { purl: 0, cpe: 0 },
      not_matchable: {
        no_identifier: 0,
        no_identifier_with_candidates: 0,
        cpe_invalid: 0,
        cpe_vendor_unknown: 0,
        version_missing: 0,
        version_unparsable: 0,
        ecosystem_not_covered: 0,
      },
    };
    for (const { purl, cpe } of components) {
      const byPurl = purlReason(purl.status, held.has(purl.ecosystem));
      const byCpe = cpe.status === 'matchable';
      if (byPurl === null) view.matchable_by.purl++;
      if (byCpe) view.matchable_by.cpe++;
      if (byPurl === null || byCpe) {
        view.matchable++;
        continue;
      }
      if (cpe.status !== 'no_cpe') view.not_matchable[cpe.status as Reason]++;
      else if (byPurl !== 'no_purl') view.not_matchable[byPurl]++;
      else {
        view.not_matchable.no_identifier++;
        index ??= nvdProductIndex(await cpeMatchingRepo.nvdProductKeys(db));
        if (candidatesFor(cpe.name, index).length > 0) view.not_matchable.no_identifier_with_candidates++;
      }
    }
    views.push(view);
  }
  return views;
}
