import { sql } from 'kysely';
import type { PortableMigration } from './types.js';

// PostgreSQL: every statement that changes API keys or organisations (each registry entry moves
// its organisation's registry_seq) notifies channel `cra_changes` when its transaction commits,
// whoever runs it (an instance, cra-admin, psql). Instances listen and drop what they cached
// from those rows (src/db/postgres-changes.ts): reads need no query to learn nothing changed.
// SQLite has its own signal of any commit (src/db/sqlite-change-token.ts).
export const CHANGES_CHANNEL = 'cra_changes';

export const changeNotices: PortableMigration = {
  name: '013-change-notices',
  async up(db, t) {
    if (t.uuid !== 'uuid') return;
    await sql`
      create function cra_notify_change() returns trigger language plpgsql as $$
      begin
        perform pg_notify('cra_changes', '');
        return null;
      end
      $$`.execute(db);
    for (const table of ['api_keys', 'organisations']) {
      await sql`
        create trigger ${sql.raw(`${table}_changed`)} after insert or update or delete or truncate on ${sql.table(table)}
        for each statement execute function cra_notify_change()`.execute(db);
    }
  },
};
