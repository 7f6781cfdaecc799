import type { KeyObject } from 'node:crypto';
import type { Database } from '../db/index.js';
import type { RegistryEntryRow } from '../db/schema.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { type Checkpoint, parseCheckpoint, registrySigningKey, signCheckpoint, signedBy } from './checkpoint.js';
import { ChainVerifier, GENESIS_HASH, type ChainCheck } from './registry-chain.js';
import { registryRepo } from './registry.repo.js';

const PAGE = 1000;

export async function* listRegistry(
  database: Database,
  orgId: string,
  upToSeq = Number.MAX_SAFE_INTEGER,
): AsyncGenerator<RegistryEntryRow> {
  let after = 0;
  for (;;) {
    const rows = await registryRepo.page(database.db, orgId, after, PAGE);
    for (const row of rows) {
      if (row.seq > upToSeq) return;
      yield row;
    }
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.seq;
  }
}

/** A page of the registry, newest first, for reading (the console); and the actions it holds. */
export async function recentRegistry(
  database: Database,
  orgId: string,
  options: { action?: string; subject?: string; beforeSeq?: number; limit: number },
) {
  const [entries, actions] = await Promise.all([
    registryRepo.recent(database.db, orgId, options),
    registryRepo.actions(database.db, orgId),
  ]);
  return { entries, actions };
}

/** Recomputes the whole chain, a page at a time, and names the first broken entry. */
export async function verifyRegistry(database: Database, orgId: string): Promise<ChainCheck> {
  // The head is read first: entries appended while we walk are not judged against it.
  const head = await registryRepo.head(database.db, orgId);
  const verifier = new ChainVerifier();
  for await (const entry of listRegistry(database, orgId, head.seq)) verifier.push(entry);
  return verifier.finish(head);
}

/** The organisation's registry head (sequence, hash) at `at`, signed with `key`. */
export async function registryCheckpoint(
  database: Database,
  org: { id: string; slug: string },
  key: KeyObject,
  at: string,
): Promise<Checkpoint> {
  const head = await registryRepo.head(database.db, org.id);
  return signCheckpoint({ org: org.slug, sequence: head.seq, hash: head.hash, time: at }, key);
}

export type CheckpointCheck =
  | { ok: true; entries: number; checkpoint_sequence: number }
  | { ok: false; entries: number; checkpoint_sequence: number; reason: string; first_broken?: number };

/**
 * Proves the chain still extends a signed head: the chain is intact and its entry at the
 * checkpoint's sequence still has the checkpoint's hash (which commits to every entry before it).
 * A rewritten or truncated chain fails this even when its own hashes and head agree.
 */
export async function verifyRegistryCheckpoint(
  database: Database,
  org: { id: string; slug: string },
  checkpoint: Checkpoint,
  key: KeyObject,
): Promise<CheckpointCheck> {
  const chain = await verifyRegistry(database, org.id);
  const base = { entries: chain.entries, checkpoint_sequence: checkpoint.sequence };
  const fail = (reason: string, extra: { first_broken?: number } = {}): CheckpointCheck => ({ ok: false, ...base, reason, ...extra });
  if (!signedBy(checkpoint, key)) return fail('the checkpoint is not signed by REGISTRY_SIGNING_KEY');
  if (checkpoint.org !== org.slug) return fail(`the checkpoint belongs to organisation "${checkpoint.org}"`);
  if (!chain.ok) return fail(`the chain is broken at entry #${chain.first_broken}`, { first_broken: chain.first_broken });
  if (checkpoint.sequence === 0)
    return checkpoint.hash === GENESIS_HASH ? { ok: true, ...base } : fail('the checkpoint of an empty chain names a hash');
  const [entry] = await registryRepo.page(database.db, org.id, checkpoint.sequence - 1, 1);
  if (!entry || entry.seq !== checkpoint.sequence) {
    return fail(`the chain ends before entry #${checkpoint.sequence} of the checkpoint: it was truncated`);
  }
  if (entry.hash !== checkpoint.hash)
    return fail(`entry #${checkpoint.sequence} no longer has the checkpoint's hash: the chain was rewritten`);
  return { ok: true, ...base };
}

/** How the registry finds an organisation by its slug (the organisations' service does). */
export interface OrgLookup {
  requireOrg(slug: string): Promise<{ id: string; slug: string }>;
}

/**
 * The registry for administrators (`cra-admin registry`) and the console, the organisation named by its slug.
 * `signingKey` is REGISTRY_SIGNING_KEY as configured (checked here, after the organisation).
 */
export function createRegistryService(database: Database, orgs: OrgLookup, clock: Clock = systemClock) {
  return {
    async *entries(orgSlug: string): AsyncGenerator<RegistryEntryRow> {
      yield* listRegistry(database, (await orgs.requireOrg(orgSlug)).id);
    },

    /** A page of the registry, newest first, and the actions it holds (the console's Activity page and a case's history). */
    async recent(orgSlug: string, options: { action?: string; subject?: string; beforeSeq?: number; limit: number }) {
      return recentRegistry(database, (await orgs.requireOrg(orgSlug)).id, options);
    },

    async verify(orgSlug: string): Promise<ChainCheck> {
      return verifyRegistry(database, (await orgs.requireOrg(orgSlug)).id);
    },

    async checkpoint(orgSlug: string, signingKey: string | null): Promise<Checkpoint> {
      const org = await orgs.requireOrg(orgSlug);
      return registryCheckpoint(database, org, registrySigningKey(signingKey), iso(clock()));
    },

    /** `checkpointText`: the checkpoint document as written by `checkpoint`. */
    async verifyCheckpoint(orgSlug: string, checkpointText: string, signingKey: string | null): Promise<CheckpointCheck> {
      const org = await orgs.requireOrg(orgSlug);
      const key = registrySigningKey(signingKey);
      return verifyRegistryCheckpoint(database, org, parseCheckpoint(checkpointText), key);
    },
  };
}

export type RegistryService = ReturnType<typeof createRegistryService>;
