import { sql } from 'kysely';
import type { PortableMigration } from './types.js';

export const initial: PortableMigration = {
  name: '001-initial',
  async up(db, t) {
    await db.schema
      .createTable('organisations')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('intake_mode', 'text', (c) => c.notNull().defaultTo('signal'))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('incident_seq', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('registry_seq', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('registry_head', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull().unique())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('expires_at', t.timestamp)
      .addColumn('revoked_at', t.timestamp)
      .addColumn('last_used_at', t.timestamp)
      .addColumn('grace_digest', 'text')
      .addColumn('grace_expires_at', t.timestamp)
      .execute();
    // A name is unique among the organisation's unrevoked keys.
    await db.schema
      .createIndex('api_keys_live_name')
      .on('api_keys')
      .columns(['org_id', 'name'])
      .unique()
      .where(sql.ref('revoked_at'), 'is', null)
      .execute();
    await db.schema.createIndex('api_keys_grace_digest').on('api_keys').column('grace_digest').execute();

    await db.schema
      .createTable('products')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('sku', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('gtin', 'text')
      .addColumn('firmware_version', 'text')
      .addColumn('end_of_support', t.timestamp)
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
      .addColumn('sbom_status', 'text', (c) => c.notNull().defaultTo('none'))
      .addColumn('sbom_components', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .addUniqueConstraint('products_org_sku', ['org_id', 'sku'])
      .addUniqueConstraint('products_org_gtin', ['org_id', 'gtin'])
      .execute();

    await db.schema
      .createTable('releases')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('product_id', t.uuid, (c) => c.notNull().references('products.id'))
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addUniqueConstraint('releases_product_version', ['product_id', 'version'])
      .execute();

    await db.schema
      .createTable('sbom_revisions')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('product_id', t.uuid, (c) => c.notNull().references('products.id'))
      .addColumn('release_id', t.uuid, (c) => c.notNull().references('releases.id'))
      .addColumn('revision', 'integer', (c) => c.notNull())
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('spec_version', 'text', (c) => c.notNull())
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('components', 'integer', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('ingested_at', t.timestamp, (c) => c.notNull())
      .addUniqueConstraint('sbom_revisions_release_revision', ['release_id', 'revision'])
      .addUniqueConstraint('sbom_revisions_product_digest', ['product_id', 'digest'])
      .execute();
    await db.schema.createIndex('sbom_revisions_product_time').on('sbom_revisions').columns(['product_id', 'ingested_at']).execute();

    await db.schema
      .createTable('sbom_components')
      .addColumn('sbom_id', t.uuid, (c) => c.notNull().references('sbom_revisions.id'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('version', 'text')
      .addColumn('purl', 'text')
      .addColumn('type', 'text')
      .addColumn('licenses', 'text')
      .addColumn('ref', 'text')
      .addPrimaryKeyConstraint('sbom_components_pk', ['sbom_id', 'position'])
      .execute();

    await db.schema
      .createTable('signals')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('incident_number', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('title', 'text')
      .addColumn('cve', 'text')
      .addColumn('sku', 'text')
      .addColumn('gtin', 'text')
      .addColumn('product_id', t.uuid, (c) => c.references('products.id'))
      .addColumn('received_at', t.timestamp, (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('reporter_name', 'text')
      .addColumn('reporter_contact', 'text')
      .addUniqueConstraint('signals_org_number', ['org_id', 'incident_number'])
      .execute();

    await db.schema
      .createTable('cases')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('signal_id', t.uuid, (c) => c.notNull().unique().references('signals.id'))
      .addColumn('incident_number', 'integer', (c) => c.notNull())
      .addColumn('product_id', t.uuid, (c) => c.references('products.id'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('notifiable', 'integer', (c) => c.notNull())
      .addColumn('aware_at', t.timestamp, (c) => c.notNull())
      .addColumn('early_warning_deadline', t.timestamp, (c) => c.notNull())
      .addColumn('full_notification_deadline', t.timestamp, (c) => c.notNull())
      .addColumn('early_warning_sent_at', t.timestamp)
      .addColumn('notification_sent_at', t.timestamp)
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('notes', 'text')
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('closed_at', t.timestamp)
      .addUniqueConstraint('cases_org_number', ['org_id', 'incident_number'])
      .execute();
    await db.schema.createIndex('cases_org_status').on('cases').columns(['org_id', 'status']).execute();
    await db.schema.createIndex('cases_product_status').on('cases').columns(['product_id', 'status']).execute();

    await db.schema
      .createTable('registry_entries')
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('at', t.timestamp, (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('details', 'text', (c) => c.notNull())
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('registry_entries_pk', ['org_id', 'seq'])
      .execute();
  },
};
