import type { Trx } from '../db/index.js';
import type { RegistryEntryRow } from '../db/schema.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { hashEntry } from './registry-chain.js';
import { registryRepo } from './registry.repo.js';

// Every feature records what it changes here, in its own transaction: the write side of the
// activity registry, apart from the service that reads and verifies it.

export interface RegistryEvent {
  actor: string;
  action: string;
  subject: string;
  /** Never a secret: callers pass names, ids and counts only. */
  details?: Record<string, unknown>;
}

/** Appends one entry inside the caller's transaction, so the entry commits with the change. */
export async function appendRegistryEntry(trx: Trx, orgId: string, event: RegistryEvent, at: string): Promise<RegistryEntryRow> {
  const { seq, prevHash } = await registryRepo.claimNextSeq(trx, orgId);
  const base = {
    org_id: orgId,
    seq,
    at,
    actor: event.actor,
    action: event.action,
    subject: event.subject,
    details: canonicalJson(event.details ?? {}),
    prev_hash: prevHash,
  };
  const entry = { ...base, hash: hashEntry(base) };
  await registryRepo.insert(trx, entry);
  return entry;
}
