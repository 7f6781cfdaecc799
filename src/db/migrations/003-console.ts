import type { PortableMigration } from './types.js';

// The console's people: users, their memberships of organisations, one-time invitations,
// server-side sessions (so sign-out and expiry hold on every instance), single-use recovery
// codes, and failed sign-ins (throttling shared by every instance through the database).
export const consoleUsers: PortableMigration = {
  name: '003-console',
  async up(db, t) {
    await db.schema
      .createTable('users')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('totp_secret', 'text')
      .addColumn('totp_enrolled_at', t.timestamp)
      .addColumn('totp_last_step', 'integer')
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('memberships')
      .addColumn('user_id', t.uuid, (c) => c.notNull().references('users.id'))
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'org_id'])
      .execute();
    await db.schema.createIndex('memberships_org').on('memberships').column('org_id').execute();

    await db.schema
      .createTable('invitations')
      .addColumn('id', t.uuid, (c) => c.primaryKey())
      .addColumn('org_id', t.uuid, (c) => c.notNull().references('organisations.id'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('token_digest', 'text', (c) => c.notNull().unique())
      .addColumn('invited_by', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('expires_at', t.timestamp, (c) => c.notNull())
      .addColumn('accepted_at', t.timestamp)
      .execute();

    await db.schema
      .createTable('console_sessions')
      .addColumn('id_digest', 'text', (c) => c.primaryKey())
      .addColumn('user_id', t.uuid, (c) => c.notNull().references('users.id'))
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('last_seen_at', t.timestamp, (c) => c.notNull())
      .addColumn('expires_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('console_sessions_user').on('console_sessions').column('user_id').execute();

    await db.schema
      .createTable('recovery_codes')
      .addColumn('user_id', t.uuid, (c) => c.notNull().references('users.id'))
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('used_at', t.timestamp)
      .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'digest'])
      .execute();

    await db.schema
      .createTable('sign_in_failures')
      .addColumn('bucket', 'text', (c) => c.notNull())
      .addColumn('at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sign_in_failures_bucket_at').on('sign_in_failures').columns(['bucket', 'at']).execute();
  },
};
