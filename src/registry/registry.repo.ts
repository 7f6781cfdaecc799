import type { Executor, Trx } from '../db/index.js';
import type { RegistryEntryRow } from '../db/schema.js';

export const registryRepo = {
  /**
   * Advances the organisation's registry head and returns the new sequence number with the
   * previous hash. The UPDATE takes the organisation's row lock, so concurrent appenders (on
   * any instance) queue here and the chain never forks.
   */
  async claimNextSeq(trx: Trx, orgId: string): Promise<{ seq: number; prevHash: string }> {
    const row = await trx
      .updateTable('organisations')
      .set((eb) => ({ registry_seq: eb('registry_seq', '+', 1) }))
      .where('id', '=', orgId)
      .returning(['registry_seq', 'registry_head'])
      .executeTakeFirstOrThrow();
    return { seq: row.registry_seq, prevHash: row.registry_head };
  },

  async insert(trx: Trx, entry: RegistryEntryRow): Promise<void> {
    await trx.insertInto('registry_entries').values(entry).execute();
    await trx.updateTable('organisations').set({ registry_head: entry.hash }).where('id', '=', entry.org_id).execute();
  },

  async page(db: Executor, orgId: string, afterSeq: number, limit: number): Promise<RegistryEntryRow[]> {
    return db
      .selectFrom('registry_entries')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
  },

  async head(db: Executor, orgId: string): Promise<{ seq: number; hash: string }> {
    const row = await db
      .selectFrom('organisations')
      .select(['registry_seq', 'registry_head'])
      .where('id', '=', orgId)
      .executeTakeFirstOrThrow();
    return { seq: row.registry_seq, hash: row.registry_head };
  },
};
