import type { Database, Trx } from '../db/index.js';
import type { RegistryEntryRow } from '../db/schema.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { ChainVerifier, hashEntry, type ChainCheck } from './registry-chain.js';
import { registryRepo } from './registry.repo.js';

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
