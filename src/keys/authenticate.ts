import type { Database } from '../db/index.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { digestKey, isWellFormedKey } from './key-format.js';
import { keysRepo } from './keys.repo.js';
import type { Scope } from './scopes.js';

export interface Principal {
  keyId: string;
  keyName: string;
  orgId: string;
  scopes: ReadonlySet<Scope>;
  /** The organisation's registry head when the request was authenticated: its change stamp. */
  orgStamp: number;
}

const TOUCH_INTERVAL_MS = 60_000;

/**
 * Secret → the key's principal, or null for anything that must be a 401 (malformed, wrong
 * checksum, unknown, revoked, expired). A malformed key never reaches the database.
 */
export function createAuthenticator(database: Database, clock: Clock = systemClock, onTouchError: (e: unknown) => void = () => {}) {
  // Remembers this process's last write per key, so a burst of requests writes once.
  const touchedAt = new Map<string, number>();
  return async function authenticate(secret: string): Promise<Principal | null> {
    if (!isWellFormedKey(secret)) return null;
    const now = clock();
    const nowIso = iso(now);
    const key = await keysRepo.findForAuthentication(database.db, digestKey(secret), nowIso);
    if (!key || key.revoked_at !== null) return null;
    if (key.expires_at !== null && key.expires_at <= nowIso) return null;
    // last_used_at is written at most once a minute per key, off the request's path.
    const lastUsed = Math.max(key.last_used_at ? Date.parse(key.last_used_at) : 0, touchedAt.get(key.id) ?? 0);
    if (now.getTime() - lastUsed >= TOUCH_INTERVAL_MS) {
      touchedAt.set(key.id, now.getTime());
      keysRepo.touch(database.db, key.id, nowIso).catch(onTouchError);
    }
    return { keyId: key.id, keyName: key.name, orgId: key.org_id, scopes: new Set(key.scopes.split(',') as Scope[]), orgStamp: key.org_stamp };
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
