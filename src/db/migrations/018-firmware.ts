import type { PortableMigration } from './types.js';

// Firmware components (firmware.md): components named by CPE, matched against NVD records, the
// EUVD's ids and exploited list, and the build's own verdicts.
// - A component's CPEs as its SBOM gave them are part of its content (`components.cpes`), and an
//   SBOM's subject's CPEs (the device itself) are kept with its revision: they decide the other
//   terms of a record's AND configurations.
// - NVD records are platform-wide, apart from OSV's (an OSV export holds records whose id is a
//   CVE id too), indexed by the vendor:product pairs their criteria name.
// - What the matcher read of each component's CPEs (the pairs it is matched under, or why it
//   cannot be: coverage), as `component_packages` holds what it read of a purl.
// - A person's confirmed CPE for a component name, organisation-wide (candidates).
// - A finding made from a CPE carries its evidence; a finding conditional on a term nothing in
//   the revision decides is counted apart; each finding names the feeds that found it.
export const firmware: PortableMigration = {
  name: '018-firmware',
  async up(db, t) {
    // Newline-separated, in the document's order (a CPE holds no newline); null when none.
    await db.schema.alterTable('components').addColumn('cpes', 'text').execute();
    await db.schema.alterTable('sbom_revisions').addColumn('subject_cpes', 'text').execute();

    await db.schema
      .createTable('nvd_records')
      .addColumn('cve', 'text', (c) => c.primaryKey())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('status', 'text')
      .addColumn('summary', 'text')
      .addColumn('cvss_score', 'real')
      .addColumn('cvss_vector', 'text')
      .addColumn('cvss_source', 'text')
      .addColumn('configurations', 'text', (c) => c.notNull())
      .addColumn('cisa_exploit_add', 'text')
      .addColumn('references', 'text', (c) => c.notNull())
      .addColumn('published', 'text')
      .addColumn('modified', 'text')
      .addColumn('withdrawn', 'text')
      .addColumn('imported_at', t.timestamp, (c) => c.notNull())
      .execute();
    // vendor:product → the records whose criteria name it; '*' for a criterion naming every product.
    await db.schema
      .createTable('nvd_record_products')
      .addColumn('product_key', 'text', (c) => c.notNull())
      .addColumn('cve', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('nvd_record_products_pk', ['product_key', 'cve'])
      .execute();
    await db.schema.createIndex('nvd_record_products_cve').on('nvd_record_products').column('cve').execute();

    // The EUVD's mapping: a CVE's EUVD id.
    await db.schema
      .createTable('euvd_ids')
      .addColumn('cve', 'text', (c) => c.primaryKey())
      .addColumn('euvd', 'text', (c) => c.notNull())
      .execute();
    // JSON: {date_added, sources, euvd} when in the EUVD's exploited list.
    await db.schema.alterTable('vulnerabilities').addColumn('euvd_exploited', 'text').execute();

    // What the matcher read of a component's CPEs: 'matchable', or why not (firmware.md, Coverage).
    await db.schema
      .createTable('component_cpe_reads')
      .addColumn('component_id', 'integer', (c) => c.primaryKey())
      .addColumn('status', 'text', (c) => c.notNull())
      .execute();
    // The vendor:product pairs a component is matched under.
    await db.schema
      .createTable('component_cpe_keys')
      .addColumn('product_key', 'text', (c) => c.notNull())
      .addColumn('component_id', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('component_cpe_keys_pk', ['product_key', 'component_id'])
      .execute();
    await db.schema.createIndex('component_cpe_keys_component').on('component_cpe_keys').column('component_id').execute();

    await db.schema
      .createTable('cpe_mappings')
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      // The component name as normalised for candidates (vendor-table.ts normaliseProductName).
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('cpe', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('cpe_mappings_pk', ['org_id', 'name', 'cpe'])
      .execute();

    // JSON evidence of a CPE match (null for a purl match); 1 when conditional; JSON array of the
    // feeds that name it (["nvd", "osv"]).
    await db.schema.alterTable('findings').addColumn('match', 'text').execute();
    await db.schema
      .alterTable('findings')
      .addColumn('conditional', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('findings')
      .addColumn('sources', 'text', (c) => c.notNull().defaultTo('["osv"]'))
      .execute();
  },
};
