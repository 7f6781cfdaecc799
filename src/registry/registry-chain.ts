import { createHash } from 'node:crypto';
import type { RegistryEntryRow } from '../db/schema.js';
import { canonicalJson } from '../shared/canonical-json.js';

// The activity registry is a hash chain per organisation: each entry's hash covers the previous
// entry's hash and the entry's own canonical JSON, so editing, deleting or reordering any entry
// breaks every hash after it. Pure functions, shared by append and verify.

export const GENESIS_HASH = '0'.repeat(64);

/** An entry before its own hash is known; `details` is canonical JSON text. */
export type ChainedEntry = Omit<RegistryEntryRow, 'hash'>;

export function hashEntry(entry: ChainedEntry): string {
  const body = canonicalJson({
    org_id: entry.org_id,
    seq: entry.seq,
    at: entry.at,
    actor: entry.actor,
    action: entry.action,
    subject: entry.subject,
    details: JSON.parse(entry.details) as unknown,
    prev_hash: entry.prev_hash,
  });
  return createHash('sha256').update(entry.prev_hash).update(body).digest('hex');
}

export type ChainCheck = { ok: true; entries: number } | { ok: false; entries: number; first_broken: number };

/**
 * Walks entries in sequence order and returns the first one whose sequence number, link to
 * its predecessor or own hash is wrong. `expectedCount` is the head the organisation recorded,
 * so a deleted tail is caught too.
 */
export class ChainVerifier {
  private expectedSeq = 1;
  private prevHash = GENESIS_HASH;
  private broken: number | null = null;
  private seen = 0;

  push(entry: ChainedEntry & { hash: string }): void {
    this.seen += 1;
    if (this.broken !== null) return;
    if (entry.seq !== this.expectedSeq || entry.prev_hash !== this.prevHash || hashEntry(entry) !== entry.hash) {
      this.broken = Math.min(entry.seq, this.expectedSeq);
      return;
    }
    this.expectedSeq += 1;
    this.prevHash = entry.hash;
  }

  finish(head: { seq: number; hash: string }): ChainCheck {
    if (this.broken === null && (head.seq !== this.expectedSeq - 1 || head.hash !== this.prevHash)) {
      this.broken = this.expectedSeq;
    }
    return this.broken === null ? { ok: true, entries: this.seen } : { ok: false, entries: this.seen, first_broken: this.broken };
  }
}
