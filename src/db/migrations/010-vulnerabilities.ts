import { sql } from 'kysely';
import type { PortableMigration } from './types.js';

// Vulnerability intelligence (vulnerabilities.md). Feeds are platform-wide (one copy for every
// organisation): OSV records and the packages they name, the two KEV catalogues, EPSS scores,
// and `vulnerabilities`, one row per alias group (a CVE, else the record's own id) with what the
// feeds say of it. Matching is platform-wide too: each distinct package version is matched once
// (`package_versions`, `vuln_matches`), and each component row is read once into its package
// version (`component_packages`).
// Findings, analyses, rules and the signals raised for exploited findings belong to organisations.
export const vulnerabilities: PortableMigration = {
  name: '010-vulnerabilities',
  async up(db, t) {
    const postgres = t.uuid === 'uuid';

    await db.schema
      .createTable('vuln_feeds')
      .addColumn('kind', 'text', (c) => c.primaryKey())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('last_import_at', t.timestamp, (c) => c.notNull())
      .addColumn('newest', 'text')
      .execute();
    // Conditional requests per URL (ETag, Last-Modified), so a scheduled fetch of an unchanged
    // feed costs one request.
    await db.schema
      .createTable('vuln_feed_sources')
      .addColumn('url', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('etag', 'text')
      .addColumn('last_modified', 'text')
      .addColumn('fetched_at', t.timestamp, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('vuln_records')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('vuln_key', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('summary', 'text')
      .addColumn('details', 'text')
      .addColumn('aliases', 'text', (c) => c.notNull())
      .addColumn('severity', 'text', (c) => c.notNull())
      .addColumn('affected', 'text', (c) => c.notNull())
      .addColumn('references', 'text', (c) => c.notNull())
      .addColumn('published', 'text')
      .addColumn('modified', 'text')
      .addColumn('withdrawn', 'text')
      .addColumn('imported_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('vuln_records_key').on('vuln_records').column('vuln_key').execute();
    await db.schema
      .createTable('vuln_record_packages')
      .addColumn('package_key', 'text', (c) => c.notNull())
      .addColumn('record_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('vuln_record_packages_pk', ['package_key', 'record_id'])
      .execute();
    await db.schema.createIndex('vuln_record_packages_record').on('vuln_record_packages').column('record_id').execute();
    // Any id or alias of a record → the record (`vuln show GHSA-…`, VEX statements by alias).
    await db.schema
      .createTable('vuln_aliases')
      .addColumn('alias', 'text', (c) => c.notNull())
      .addColumn('record_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('vuln_aliases_pk', ['alias', 'record_id'])
      .execute();
    await db.schema.createIndex('vuln_aliases_record').on('vuln_aliases').column('record_id').execute();

    await db.schema
      .createTable('kev_entries')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('cve', 'text', (c) => c.notNull())
      .addColumn('euvd', 'text')
      .addColumn('date_added', 'text')
      .addColumn('ransomware', 'text')
      .addColumn('data', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('kev_entries_pk', ['source', 'cve'])
      .execute();
    await db.schema.createIndex('kev_entries_cve').on('kev_entries').column('cve').execute();
    await db.schema
      .createTable('epss_scores')
      .addColumn('cve', 'text', (c) => c.primaryKey())
      .addColumn('score', 'real', (c) => c.notNull())
      .addColumn('percentile', 'real', (c) => c.notNull())
      .addColumn('score_date', 'text')
      .execute();

    await db.schema
      .createTable('vulnerabilities')
      .addColumn('vuln_key', 'text', (c) => c.primaryKey())
      .addColumn('cve', 'text')
      .addColumn('euvd', 'text')
      .addColumn('summary', 'text')
      .addColumn('aliases', 'text', (c) => c.notNull())
      .addColumn('cvss_score', 'real')
      .addColumn('cvss_vector', 'text')
      .addColumn('epss_score', 'real')
      .addColumn('epss_percentile', 'real')
      .addColumn('cisa_kev', 'text')
      .addColumn('eu_kev', 'text')
      .addColumn('exploited', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('vulnerabilities_cve').on('vulnerabilities').column('cve').execute();

    await db.schema
      .createTable('package_versions')
      .addColumn('id', 'integer', (c) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
      .addColumn('package_key', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('ecosystem', 'text', (c) => c.notNull())
      .addUniqueConstraint('package_versions_key_version', ['package_key', 'version'])
      .execute();
    await db.schema
      .createTable('vuln_matches')
      .addColumn('package_version_id', 'integer', (c) => c.notNull())
      .addColumn('record_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('vuln_matches_pk', ['package_version_id', 'record_id'])
      .execute();
    await db.schema.createIndex('vuln_matches_record').on('vuln_matches').column('record_id').execute();

    // What the matcher read from each component's purl: its package version, or why it cannot be
    // matched (coverage). A component without a row here has not been read yet.
    await db.schema
      .createTable('component_packages')
      .addColumn('component_id', 'integer', (c) => c.primaryKey())
      .addColumn('package_version_id', 'integer')
      .addColumn('status', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('component_packages_version').on('component_packages').column('package_version_id').execute();

    await db.schema
      .createTable('findings')
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('product_id', t.uuid, (c) => c.notNull().references('products.id'))
      .addColumn('component_id', 'integer', (c) => c.notNull())
      .addColumn('vuln_key', 'text', (c) => c.notNull())
      .addColumn('releases', 'text', (c) => c.notNull())
      .addColumn('first_seen_at', t.timestamp, (c) => c.notNull())
      .addColumn('gone_at', t.timestamp)
      .addColumn('gone_with', 'text')
      // Copied from `vulnerabilities` so that a page of findings is one index walk, exploited
      // first, then by CVSS and EPSS.
      .addColumn('exploited', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cvss_score', 'real')
      .addColumn('epss_score', 'real')
      // Product first: a product's findings are read, and each one updated, by product (a
      // re-match refreshes up to every product; led by org_id, each read scanned the table).
      .addPrimaryKeyConstraint('findings_pk', ['product_id', 'component_id', 'vuln_key'])
      .execute();
    await db.schema.createIndex('findings_vuln').on('findings').columns(['vuln_key', 'org_id']).execute();
    // A page of an organisation's live findings is one walk of this index, in the lists' order
    // (exploited, then CVSS and EPSS with unknown scores last, then a stable tiebreak). Unknown
    // scores come last in a descending order on SQLite by themselves; PostgreSQL is told.
    const last = postgres ? sql` nulls last` : sql``;
    await sql`create index findings_order on findings (org_id, exploited desc, cvss_score desc${last}, epss_score desc${last}, vuln_key, product_id, component_id) where gone_at is null`.execute(
      db,
    );

    await db.schema
      .createTable('finding_analyses')
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('product_id', t.uuid, (c) => c.notNull().references('products.id'))
      .addColumn('vuln_key', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('justification', 'text')
      .addColumn('responses', 'text', (c) => c.notNull())
      .addColumn('detail', 'text')
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('finding_analyses_pk', ['org_id', 'product_id', 'vuln_key'])
      .execute();
    await db.schema
      .createTable('analysis_rules')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('vuln_key', 'text', (c) => c.notNull())
      .addColumn('purl', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('justification', 'text')
      .addColumn('responses', 'text', (c) => c.notNull())
      .addColumn('detail', 'text')
      .addColumn('until', t.timestamp)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('analysis_rules_vuln').on('analysis_rules').columns(['org_id', 'vuln_key']).execute();

    // One inbound signal per product and exploited vulnerability, ever.
    await db.schema
      .createTable('exploited_signals')
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('product_id', t.uuid, (c) => c.notNull().references('products.id'))
      .addColumn('vuln_key', 'text', (c) => c.notNull())
      .addColumn('signal_id', t.uuid, (c) => c.notNull())
      .addColumn('raised_at', t.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('exploited_signals_pk', ['org_id', 'product_id', 'vuln_key'])
      .execute();
  },
};
