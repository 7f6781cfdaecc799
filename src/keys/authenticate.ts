import type { Database } from '../db/index.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { digestKey, isWellFormedKey } from './key-format.js';
import { keysRepo } from './keys.repo.js';
import type { Scope } from './scopes.js';

export interface Principal {
  readonly keyId: string;
  readonly keyName: string;
  readonly orgId: string;
  readonly scopes: ReadonlySet<Scope>;
  /**
   * The organisation's registry sequence number (organisations.registry_seq) when the request was
   * authenticated. Every change appends a registry entry, so this is the change stamp read caches
   * are keyed by (see SnapshotCache).
   */
  readonly orgRegistrySeq: number;
}

type KeyRow = NonNullable<Awaited<ReturnType<typeof keysRepo.findByDigest>>>;

interface Found {
  key: KeyRow;
  principal: Principal;
  /** key.last_used_at and key.expires_at in milliseconds, parsed once (0 / Infinity when unset). */
  lastUsedMs: number;
  expiresMs: number;
}

const TOUCH_INTERVAL_MS = 60_000;
/** Keys remembered between two commits; any beyond are looked up every time. */
const REMEMBERED_KEYS_LIMIT = 10_000;

function found(key: KeyRow): Found {
  return {
    key,
    principal: {
      keyId: key.id,
      keyName: key.name,
      orgId: key.org_id,
      scopes: new Set(key.scopes.split(',') as Scope[]),
      orgRegistrySeq: key.org_registry_seq,
    },
    lastUsedMs: key.last_used_at ? Date.parse(key.last_used_at) : 0,
    expiresMs: key.expires_at ? Date.parse(key.expires_at) : Infinity,
  };
}

/**
 * Secret → the key's principal, or null for anything that must be a 401 (malformed, wrong
 * checksum, unknown, revoked, expired). A malformed key never reaches the database.
 */
export function createAuthenticator(database: Database, clock: Clock = systemClock, onTouchError: (e: unknown) => void = () => {}) {
  // Remembers this process's last write per key, so a burst of requests writes once.
  const touchedAt = new Map<string, number>();
  // Keys found by their current digest, exact for as long as the database's change token stays
  // the same: any commit, by this process or another (a revocation by cra-admin, another
  // instance), changes the token and empties this before the next lookup uses it. Expiry is
  // checked on every request. Unknown digests and secrets in grace are always looked up.
  const remembered = new Map<string, Found>();
  let rememberedAt: string | null = null;

  async function lookup(digest: string, now: Date): Promise<Found | undefined> {
    const token = await database.changeToken();
    if (token !== rememberedAt) {
      remembered.clear();
      rememberedAt = token;
    }
    if (token !== null) {
      const hit = remembered.get(digest);
      if (hit) return hit;
    }
    const key = await keysRepo.findByDigest(database.db, digest);
    if (key) {
      const result = found(key);
      // The row is at least as new as the token read before it. Kept only if no newer token
      // has been seen meanwhile; a commit after the read changes the token, which drops it.
      if (token !== null && rememberedAt === token && remembered.size < REMEMBERED_KEYS_LIMIT) remembered.set(digest, result);
      return result;
    }
    const inGrace = await keysRepo.findInGrace(database.db, digest, iso(now));
    return inGrace && found(inGrace);
  }

  return async function authenticate(secret: string): Promise<Principal | null> {
    if (!isWellFormedKey(secret)) return null;
    const now = clock();
    const nowMs = now.getTime();
    const result = await lookup(digestKey(secret), now);
    if (!result) return null;
    const { key } = result;
    if (key.revoked_at !== null) return null;
    if (result.expiresMs <= nowMs) return null;
    // last_used_at is written at most once a minute per key, like any other write: through
    // `transaction` (group-committed on SQLite). The request waits for it, so what it shows is
    // exact for the next one; a failure to write it never fails the request.
    const lastUsed = Math.max(result.lastUsedMs, touchedAt.get(key.id) ?? 0);
    if (nowMs - lastUsed >= TOUCH_INTERVAL_MS) {
      touchedAt.set(key.id, nowMs);
      await database.transaction((trx) => keysRepo.touch(trx, key.id, iso(now))).catch(onTouchError);
    }
    return result.principal;
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
