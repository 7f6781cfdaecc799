import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import { isUniqueViolation } from '../db/index.js';
import type { ApiKeyRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { assertStorableText, isStorableText } from '../shared/storable-text.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { digestKey, displayPrefix, generateKey } from './key-format.js';
import { keysRepo } from './keys.repo.js';
import { isScope, SCOPES, type Scope } from './scopes.js';

/** What an administrator sees of a key: never the secret or its digest. */
export interface KeyView {
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** After a rotation with a grace period: until when the previous secret still works (null once it no longer does). */
  previous_secret_until: string | null;
}

/** Printed once, at creation or rotation. */
export interface IssuedKey {
  name: string;
  prefix: string;
  scopes: Scope[];
  expires_at: string | null;
  secret: string;
  /** Rotation only: the previous secret's prefix. */
  previous_prefix?: string;
  /** Rotation only: until when the previous secret still works (null: it stopped at once), as `key list` shows it. */
  previous_secret_until?: string | null;
}

export function parseScopes(raw: string): Scope[] {
  return checkedScopes([
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ]);
}

/** A key carries at least one scope, each a known one. */
function checkedScopes(scopes: readonly string[]): Scope[] {
  if (scopes.length === 0) throw new AppError('validation_failed', `a key needs at least one scope: ${SCOPES.join(', ')}`);
  for (const scope of scopes) {
    if (!isScope(scope)) {
      throw new AppError('validation_failed', `unknown scope "${scope}" (allowed: ${SCOPES.join(', ')}; there is no wildcard)`);
    }
  }
  return [...scopes] as Scope[];
}

function toKeyView(row: ApiKeyRow, now: Date): KeyView {
  const graceLive = row.grace_expires_at !== null && row.revoked_at === null && Date.parse(row.grace_expires_at) > now.getTime();
  return {
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes.split(',') as Scope[],
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
    previous_secret_until: graceLive ? row.grace_expires_at : null,
  };
}

export function createKeyService(database: Database, orgs: OrgService, clock: Clock = systemClock) {
  async function requireLiveKey(orgId: string, name: string): Promise<ApiKeyRow> {
    const key = isStorableText(name) ? await keysRepo.findLiveByName(database.db, orgId, name) : undefined;
    if (!key) throw new AppError('not_found', `no active key named "${name}"`);
    return key;
  }

  return {
    async createKey(input: { org: string; name: string; scopes: Scope[]; expiresAt?: Date | null; actor?: string }): Promise<IssuedKey> {
      assertStorableText({ name: input.name });
      const scopes = checkedScopes(input.scopes);
      const org = await orgs.requireOrg(input.org);
      const name = input.name.trim();
      if (!name || name.length > 100) throw new AppError('validation_failed', 'a key name must be 1–100 characters');
      const now = clock();
      if (input.expiresAt && input.expiresAt <= now) throw new AppError('validation_failed', 'expiry must be in the future');
      const secret = generateKey();
      const row = {
        id: randomUUID(),
        org_id: org.id,
        name,
        scopes: scopes.join(','),
        digest: digestKey(secret),
        prefix: displayPrefix(secret),
        created_at: iso(now),
        expires_at: input.expiresAt ? iso(input.expiresAt) : null,
      };
      try {
        await database.transaction(async (trx) => {
          await keysRepo.insert(trx, row);
          await appendRegistryEntry(
            trx,
            org.id,
            {
              actor: input.actor ?? 'cli',
              action: 'key.created',
              subject: name,
              details: { prefix: row.prefix, scopes, expires_at: row.expires_at },
            },
            row.created_at,
          );
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError('conflict', `a key named "${name}" already exists`);
        throw error;
      }
      return { name, prefix: row.prefix, scopes, expires_at: row.expires_at, secret };
    },

    async listKeys(orgSlug: string): Promise<KeyView[]> {
      const org = await orgs.requireOrg(orgSlug);
      const now = clock();
      return (await keysRepo.listByOrg(database.db, org.id)).map((row) => toKeyView(row, now));
    },

    /** New secret for the same key; the old one dies now, or after `graceMs`. */
    async rotateKey(input: { org: string; name: string; graceMs?: number; actor?: string }): Promise<IssuedKey> {
      const org = await orgs.requireOrg(input.org);
      const key = await requireLiveKey(org.id, input.name);
      const now = clock();
      const secret = generateKey();
      const graceMs = input.graceMs ?? 0;
      const change = {
        digest: digestKey(secret),
        prefix: displayPrefix(secret),
        grace_digest: graceMs > 0 ? key.digest : null,
        grace_expires_at: graceMs > 0 ? iso(new Date(now.getTime() + graceMs)) : null,
      };
      await database.transaction(async (trx) => {
        await keysRepo.rotate(trx, key.id, change);
        await appendRegistryEntry(
          trx,
          org.id,
          {
            actor: input.actor ?? 'cli',
            action: 'key.rotated',
            subject: key.name,
            details: { prefix: change.prefix, previous_prefix: key.prefix, grace_until: change.grace_expires_at },
          },
          iso(now),
        );
      });
      return {
        name: key.name,
        prefix: change.prefix,
        scopes: key.scopes.split(',') as Scope[],
        expires_at: key.expires_at,
        secret,
        previous_prefix: key.prefix,
        previous_secret_until: change.grace_expires_at,
      };
    },

    async revokeKey(input: { org: string; name: string; actor?: string }): Promise<KeyView> {
      const org = await orgs.requireOrg(input.org);
      const key = await requireLiveKey(org.id, input.name);
      const now = iso(clock());
      await database.transaction(async (trx) => {
        await keysRepo.revoke(trx, key.id, now);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: input.actor ?? 'cli', action: 'key.revoked', subject: key.name, details: { prefix: key.prefix } },
          now,
        );
      });
      return toKeyView({ ...key, revoked_at: now }, clock());
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
