import type { PortableMigration } from './types.js';

// First-run set-up (console.md): while the database has no user, the server prints a one-time
// link that creates the first organisation and its owner. Only the SHA-256 digest of the link's
// token is stored, as for invitations and sessions; a server start clears the table, so a link
// lives until it is used or until the next start of a server on this database.
export const setupLinks: PortableMigration = {
  name: '009-setup-links',
  async up(db, t) {
    await db.schema
      .createTable('setup_links')
      .addColumn('token_digest', 'text', (c) => c.primaryKey())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .execute();
  },
};
