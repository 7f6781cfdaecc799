import type { PortableMigration } from './types.js';

// SBOM conformance (sbom-conformance.md):
// - each revision keeps the reports computed when it was read, one per profile and profile
//   version (a new profile version adds a report beside the old one, never rewrites it);
// - an organisation's policy: `report` (accept and report) or `require:PROFILE` (refuse a
//   document that does not conform to PROFILE).
export const sbomConformance: PortableMigration = {
  name: '020-sbom-conformance',
  async up(db, t) {
    await db.schema
      .createTable('sbom_conformance')
      .addColumn('sbom_id', t.uuid, (c) => c.notNull().references('sbom_revisions.id'))
      .addColumn('profile', 'text', (c) => c.notNull())
      .addColumn('profile_version', 'text', (c) => c.notNull())
      // 1 when the document conforms, else 0.
      .addColumn('conforms', 'integer', (c) => c.notNull())
      // The missing required field ids, comma-separated, in the spec's order; '' when none.
      .addColumn('missing_required', 'text', (c) => c.notNull())
      // The whole report (sbom-conformance.md, The report) as JSON.
      .addColumn('report', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('sbom_conformance_pk', ['sbom_id', 'profile', 'profile_version'])
      .execute();
    await db.schema
      .alterTable('organisations')
      .addColumn('sbom_policy', 'text', (c) => c.notNull().defaultTo('report'))
      .execute();
  },
};
