import type { Executor } from '../db/index.js';
import type { RegistryEntryRow } from '../db/schema.js';

// What the platform knows around a case, read for report pre-filling, the advisory and the
// evidence bundle.

export interface RevisionAt {
  release_version: string;
  revision: number;
  sbom_id: string;
  format: string;
  spec_version: string;
  digest: string;
  components: number;
  ingested_at: string;
}

export const caseContextRepo = {
  /** The product's release versions, oldest first, with when each was first seen. */
  releases(db: Executor, productId: string): Promise<Array<{ version: string; created_at: string }>> {
    return db
      .selectFrom('releases')
      .select(['version', 'created_at'])
      .where('product_id', '=', productId)
      .orderBy('created_at')
      .orderBy('version')
      .execute();
  },

  /** For each release of the product, the newest SBOM revision ingested at or before `at`. */
  async revisionsCurrentAt(db: Executor, productId: string, at: string): Promise<RevisionAt[]> {
    const rows = await db
      .selectFrom('sbom_revisions as s')
      .innerJoin('releases as r', 'r.id', 's.release_id')
      .select([
        'r.version as release_version',
        's.revision',
        's.id as sbom_id',
        's.format',
        's.spec_version',
        's.digest',
        's.components',
        's.ingested_at',
      ])
      .where('s.product_id', '=', productId)
      .where('s.ingested_at', '<=', at)
      .orderBy('r.version')
      .orderBy('s.revision', 'desc')
      .execute();
    const latest = new Map<string, RevisionAt>();
    for (const row of rows)
      if (!latest.has(row.release_version))
        latest.set(row.release_version, { ...row, components: Number(row.components), revision: Number(row.revision) });
    return [...latest.values()];
  },

  /** Signals merged into the case as duplicates. */
  mergedSignals(
    db: Executor,
    orgId: string,
    incidentNumber: number,
  ): Promise<Array<{ incident_number: number; cve: string | null; received_at: string }>> {
    return db
      .selectFrom('signals')
      .select(['incident_number', 'cve', 'received_at'])
      .where('org_id', '=', orgId)
      .where('merged_into', '=', incidentNumber)
      .orderBy('incident_number')
      .execute();
  },

  /** The registry entries about the given subjects ("case 3", "signal 3", …), in chain order. */
  registryEntries(db: Executor, orgId: string, subjects: readonly string[]): Promise<RegistryEntryRow[]> {
    return db
      .selectFrom('registry_entries')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('subject', 'in', subjects)
      .orderBy('seq')
      .execute();
  },
};
