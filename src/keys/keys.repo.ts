import type { Executor } from '../db/index.js';
import { queryTemplate } from '../db/query-template.js';
import type { ApiKeyRow, NewApiKey } from '../db/schema.js';

// On every request's path, so compiled once (see queryTemplate).
const authenticationQuery = queryTemplate((db, slot: (name: 'digest' | 'now') => never) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('organisations as o', 'o.id', 'k.org_id')
    .select(['k.id', 'k.org_id', 'k.name', 'k.scopes', 'k.expires_at', 'k.revoked_at', 'k.last_used_at', 'o.registry_seq as org_stamp'])
    .where((eb) =>
      eb.or([
        eb('k.digest', '=', slot('digest')),
        eb.and([eb('k.grace_digest', '=', slot('digest')), eb('k.grace_expires_at', '>', slot('now'))]),
      ]),
    ),
);

export const keysRepo = {
  async insert(db: Executor, key: NewApiKey): Promise<void> {
    await db.insertInto('api_keys').values(key).execute();
  },

  findLiveByName(db: Executor, orgId: string, name: string): Promise<ApiKeyRow | undefined> {
    return db
      .selectFrom('api_keys')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('name', '=', name)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  },

  listByOrg(db: Executor, orgId: string): Promise<ApiKeyRow[]> {
    return db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('name').execute();
  },

  /**
   * The key whose current secret, or whose rotated-out secret still in grace, has this digest,
   * with its organisation's registry head (the change stamp read caches are keyed by).
   */
  async findForAuthentication(db: Executor, digest: string, now: string) {
    const [row] = await authenticationQuery(db, { digest, now });
    return row;
  },

  async rotate(db: Executor, id: string, change: { digest: string; prefix: string; grace_digest: string | null; grace_expires_at: string | null }) {
    await db.updateTable('api_keys').set(change).where('id', '=', id).execute();
  },

  async revoke(db: Executor, id: string, at: string): Promise<void> {
    await db.updateTable('api_keys').set({ revoked_at: at, grace_digest: null, grace_expires_at: null }).where('id', '=', id).execute();
  },

  async touch(db: Executor, id: string, at: string): Promise<void> {
    await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  },
};
