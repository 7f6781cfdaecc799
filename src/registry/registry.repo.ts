import type { Executor, Trx } from '../db/index.js';
import { queryTemplate } from '../db/query-template.js';
import type { RegistryEntryRow } from '../db/schema.js';

// Appends run inside every write (signals, cases, keys, products, SBOMs): compiled once.
const claimQuery = queryTemplate((db, slot: (name: 'org_id') => never) =>
  db
    .updateTable('organisations')
    .set((eb) => ({ registry_seq: eb('registry_seq', '+', 1) }))
    .where('id', '=', slot('org_id'))
    .returning(['registry_seq', 'registry_head']),
);
const ENTRY_COLUMNS = ['org_id', 'seq', 'at', 'actor', 'action', 'subject', 'details', 'prev_hash', 'hash'] as const;
type EntryColumn = (typeof ENTRY_COLUMNS)[number];
const insertQuery = queryTemplate((db, slot: (name: EntryColumn) => never) =>
  db.insertInto('registry_entries').values(Object.fromEntries(ENTRY_COLUMNS.map((c) => [c, slot(c)])) as unknown as RegistryEntryRow),
);
const setHeadQuery = queryTemplate((db, slot: (name: 'org_id' | 'hash') => never) =>
  db
    .updateTable('organisations')
    .set({ registry_head: slot('hash') })
    .where('id', '=', slot('org_id')),
);

export const registryRepo = {
  /**
   * Advances the organisation's registry head and returns the new sequence number with the
   * previous hash. The UPDATE takes the organisation's row lock, so concurrent appenders (on
   * any instance) queue here and the chain never forks.
   */
  async claimNextSeq(trx: Trx, orgId: string): Promise<{ seq: number; prevHash: string }> {
    const [row] = await claimQuery(trx, { org_id: orgId });
    if (!row) throw new Error(`organisation ${orgId} does not exist`);
    return { seq: row.registry_seq, prevHash: row.registry_head };
  },

  async insert(trx: Trx, entry: RegistryEntryRow): Promise<void> {
    await insertQuery(trx, entry);
    await setHeadQuery(trx, { org_id: entry.org_id, hash: entry.hash });
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

  /** Newest first, optionally one action only, entries before `beforeSeq`. */
  recent(
    db: Executor,
    orgId: string,
    options: { action?: string; subject?: string; beforeSeq?: number; limit: number },
  ): Promise<RegistryEntryRow[]> {
    let query = db.selectFrom('registry_entries').selectAll().where('org_id', '=', orgId);
    if (options.action) query = query.where('action', '=', options.action);
    if (options.subject) query = query.where('subject', '=', options.subject);
    if (options.beforeSeq !== undefined) query = query.where('seq', '<', options.beforeSeq);
    return query.orderBy('seq', 'desc').limit(options.limit).execute();
  },

  async actions(db: Executor, orgId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('registry_entries')
      .select('action')
      .distinct()
      .where('org_id', '=', orgId)
      .orderBy('action')
      .execute();
    return rows.map((r) => r.action);
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
