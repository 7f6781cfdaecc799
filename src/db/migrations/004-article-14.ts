import type { PortableMigration } from './types.js';

// Article 14 end to end (art14.md): organisation and product data the reports need, the triage
// outcome of a signal, the kind and the fix of a case, and one row per report of a case.
export const article14: PortableMigration = {
  name: '004-article-14',
  async up(db, t) {
    await db.schema.alterTable('organisations').addColumn('legal_name', 'text').execute();
    await db.schema.alterTable('organisations').addColumn('postal_address', 'text').execute();
    await db.schema.alterTable('organisations').addColumn('contact_email', 'text').execute();
    await db.schema.alterTable('organisations').addColumn('member_state', 'text').execute();
    // JSON array of ISO 3166-1 alpha-2 codes, or ["EU"] for every Member State.
    await db.schema.alterTable('products').addColumn('markets', 'text').execute();
    await db.schema.alterTable('signals').addColumn('triage_reason', 'text').execute();
    await db.schema.alterTable('signals').addColumn('merged_into', 'integer').execute();
    await db.schema
      .alterTable('cases')
      .addColumn('kind', 'text', (c) => c.notNull().defaultTo('vulnerability'))
      .execute();
    await db.schema.alterTable('cases').addColumn('notifiable_reason', 'text').execute();
    await db.schema.alterTable('cases').addColumn('fix_available_at', t.timestamp).execute();
    await db.schema.alterTable('cases').addColumn('fix_description', 'text').execute();
    await db.schema.alterTable('cases').addColumn('advisory_published_at', t.timestamp).execute();
    await db.schema.alterTable('cases').addColumn('advisory_url', 'text').execute();

    await db.schema
      .createTable('case_reports')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('case_id', t.uuid, (c) => c.notNull().references('cases.id'))
      .addColumn('stage', 'text', (c) => c.notNull())
      // 1, 2, … for intermediate reports (one per request of the CSIRT); 0 for the other stages.
      .addColumn('seq', 'integer', (c) => c.notNull())
      // Intermediate reports only: the due time the CSIRT gave and when it asked.
      .addColumn('due_at', t.timestamp)
      .addColumn('requested_at', t.timestamp)
      // The draft: a JSON object of field → value, saved any number of times until filed.
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .addColumn('filed_at', t.timestamp)
      .addColumn('srp_reference', 'text')
      .addColumn('filed_by', 'text')
      // Frozen at filing: the canonical JSON filed and its SHA-256 (null for a filing recorded without content).
      .addColumn('content', 'text')
      .addColumn('content_sha256', 'text')
      .addColumn('recorded_at', t.timestamp)
      .addUniqueConstraint('case_reports_stage_seq', ['case_id', 'stage', 'seq'])
      .execute();
  },
};
