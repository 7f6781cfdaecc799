import type { PortableMigration } from './types.js';

// Signed webhooks (webhooks.md): endpoints, the outbox of events, one delivery per event and
// endpoint with its retry state, every attempt, and the marks that make periodic jobs run once.
export const webhooks: PortableMigration = {
  name: '005-webhooks',
  async up(db, t) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('event_types', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_expires_at', t.timestamp)
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('disabled_at', t.timestamp)
      .addColumn('disabled_reason', 'text')
      .addColumn('failing_since', t.timestamp)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_endpoints_org').on('webhook_endpoints').columns(['org_id', 'status']).execute();

    await db.schema
      .createTable('webhook_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      // Clock events carry a key such as "stage_due_soon:<case>:early_warning:6h": the unique
      // index is what makes each threshold fire once, whichever instance gets there first.
      .addColumn('dedup_key', 'text', (c) => c.unique())
      .execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
      .addColumn('endpoint_id', t.uuid, (c) => c.notNull().references('webhook_endpoints.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', t.timestamp, (c) => c.notNull())
      .addColumn('retry_from', t.timestamp, (c) => c.notNull())
      .addColumn('claim_token', 'text')
      .addColumn('claimed_until', t.timestamp)
      .addColumn('last_attempt_at', t.timestamp)
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('completed_at', t.timestamp)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addUniqueConstraint('webhook_deliveries_event_endpoint', ['event_id', 'endpoint_id'])
      .execute();
    await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
    await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'created_at']).execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('delivery_id', t.uuid, (c) => c.notNull().references('webhook_deliveries.id'))
      .addColumn('attempted_at', t.timestamp, (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .execute();
    await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'attempted_at']).execute();

    await db.schema
      .createTable('scheduler_runs')
      .addColumn('job', 'text', (c) => c.notNull())
      .addColumn('slot', 'text', (c) => c.notNull())
      .addColumn('at', t.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('scheduler_runs_pk', ['job', 'slot'])
      .execute();
  },
};
