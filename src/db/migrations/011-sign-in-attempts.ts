import type { PortableMigration } from './types.js';

// Sign-in throttling as one atomic step (users.service.ts): each attempt is recorded as a failure
// before its password is checked, under the attempt's id, and its rows are removed once it
// succeeds; rows of earlier versions have none. Devices a user has signed in from before have
// a limit of their own, so failures from elsewhere never lock their owner out.
export const signInAttempts: PortableMigration = {
  name: '011-sign-in-attempts',
  async up(db, t) {
    await db.schema.alterTable('sign_in_failures').addColumn('attempt', 'text').execute();
    await db.schema.createIndex('sign_in_failures_attempt').on('sign_in_failures').column('attempt').execute();

    await db.schema
      .createTable('console_devices')
      .addColumn('digest', 'text', (c) => c.primaryKey())
      .addColumn('user_id', t.uuid, (c) => c.notNull().references('users.id'))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('last_used_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('console_devices_user').on('console_devices').column('user_id').execute();
  },
};
