import type { Executor } from '../db/index.js';
import { queryTemplate } from '../db/query-template.js';
import type { ApiKeyRow, NewApiKey } from '../db/schema.js';

// On every request's path, so compiled once (see queryTemplate). Two point lookups instead of
// one OR: the current digest almost always matches, and a single-index lookup is the cheapest.
const AUTH_COLUMNS = [
  'k.id',
  'k.org_id',
  'k.name',
  'k.scopes',
  'k.expires_at',
  'k.revoked_at',
  'k.last_used_at',
  'o.registry_seq as org_registry_seq',
] as const;
const byDigestQuery = queryTemplate((db, slot: (name: 'digest') => never) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('organisations as o', 'o.id', 'k.org_id')
    .select(AUTH_COLUMNS)
    .where('k.digest', '=', slot('digest')),
);
const byGraceDigestQuery = queryTemplate((db, slot: (name: 'digest' | 'now') => never) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('organisations as o', 'o.id', 'k.org_id')
    .select(AUTH_COLUMNS)
    .where('k.grace_digest', '=', slot('digest'))
    .where('k.grace_expires_at', '>', slot('now')),
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

  /** The key whose current secret has this digest, with its organisation's registry sequence number (the change stamp read caches are keyed by). */
  async findByDigest(db: Executor, digest: string) {
    const [key] = await byDigestQuery(db, { digest });
    return key;
  },

  /** The key whose rotated-out secret has this digest and is still in its grace period. */
  async findInGrace(db: Executor, digest: string, now: string) {
    const [key] = await byGraceDigestQuery(db, { digest, now });
    return key;
  },

  async rotate(
    db: Executor,
    id: string,
    change: { digest: string; prefix: string; grace_digest: string | null; grace_expires_at: string | null },
  ) {
    await db.updateTable('api_keys').set(change).where('id', '=', id).execute();
  },

  async revoke(db: Executor, id: string, at: string): Promise<void> {
    await db.updateTable('api_keys').set({ revoked_at: at, grace_digest: null, grace_expires_at: null }).where('id', '=', id).execute();
  },

  /** Live keys whose expiry lies after `from` and at or before `to` (the scheduler's notices). */
  expiringBetween(db: Executor, from: string, to: string) {
    return db
      .selectFrom('api_keys')
      .select(['id', 'org_id', 'name', 'prefix', 'expires_at'])
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', from)
      .where('expires_at', '<=', to)
      .execute();
  },

  async touch(db: Executor, id: string, at: string): Promise<void> {
    await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  },
};
