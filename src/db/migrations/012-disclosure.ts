import { sql } from 'kysely';
import type { PortableMigration } from './types.js';

// Coordinated vulnerability disclosure (disclosure.md): the public pages' settings per
// organisation; each report that came through them (the signal it became, the digest of the
// reporter's follow-up link, what the form asked beyond the signal's fields); the conversation
// between reporter and team; the sealed attachments, by a storage key only the store sees, and
// on PostgreSQL their sealed bytes (so every instance reads them; SQLite keeps them in files).
export const disclosure: PortableMigration = {
  name: '012-disclosure',
  async up(db, t) {
    const postgres = t.uuid === 'uuid';
    await db.schema
      .createTable('disclosure_settings')
      .addColumn('org_id', t.uuid, (c) => c.primaryKey().references('organisations.id'))
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('policy', 'text', (c) => c.notNull())
      .addColumn('acknowledge_days', 'integer', (c) => c.notNull())
      .addColumn('preferred_languages', 'text', (c) => c.notNull())
      .addColumn('expires_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('disclosure_reports')
      .addColumn('signal_id', t.uuid, (c) => c.primaryKey().references('signals.id'))
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('token_digest', 'text', (c) => c.notNull().unique())
      .addColumn('revoked_at', t.timestamp)
      .addColumn('affected_versions', 'text')
      .addColumn('how_found', 'text')
      .addColumn('credit', 'text')
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('disclosure_reports_org').on('disclosure_reports').column('org_id').execute();

    await db.schema
      .createTable('disclosure_messages')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('signal_id', t.uuid, (c) => c.notNull().references('signals.id'))
      .addColumn('author', 'text', (c) => c.notNull())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('disclosure_messages_signal').on('disclosure_messages').columns(['signal_id', 'created_at']).execute();

    await db.schema
      .createTable('disclosure_attachments')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('signal_id', t.uuid, (c) => c.notNull().references('signals.id'))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('storage_key', 'text', (c) => c.notNull().unique())
      .addColumn('sealed_name', 'text', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('disclosure_attachments_signal').on('disclosure_attachments').column('signal_id').execute();

    await db.schema
      .createTable('disclosure_blobs')
      .addColumn('storage_key', 'text', (c) => c.primaryKey())
      .addColumn('data', postgres ? sql`bytea` : sql`blob`, (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
  },
};
