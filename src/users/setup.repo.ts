import type { Executor } from '../db/index.js';

export const setupRepo = {
  /** Whether any console user exists (disabled ones too): once one does, the instance is set up for good. */
  async anyUser(db: Executor): Promise<boolean> {
    return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
  },
  async insert(db: Executor, row: { token_digest: string; created_at: string; created_by: string }): Promise<void> {
    await db.insertInto('setup_links').values(row).execute();
  },
  async exists(db: Executor, tokenDigest: string): Promise<boolean> {
    return (
      (await db.selectFrom('setup_links').select('token_digest').where('token_digest', '=', tokenDigest).executeTakeFirst()) !== undefined
    );
  },
  /**
   * Deletes every link and names those this call deleted. Two claims at once (two tabs, or two
   * links) both try to delete the same rows: on PostgreSQL the second waits for the first's row
   * locks and then finds them gone, on SQLite transactions run one after another; either way
   * only one claim sees its own link among those it deleted.
   */
  async takeAll(db: Executor): Promise<string[]> {
    const rows = await db.deleteFrom('setup_links').returning('token_digest').execute();
    return rows.map((r) => r.token_digest);
  },
  async clear(db: Executor): Promise<void> {
    await db.deleteFrom('setup_links').execute();
  },
};
