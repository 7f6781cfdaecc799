import type { Executor, Trx } from '../db/index.js';
import { queryTemplate } from '../db/query-template.js';
import type { IntakeMode, SignalRow } from '../db/schema.js';

// Numbering and the insert run on every intake: compiled once (see queryTemplate).
const claimQuery = queryTemplate((db, slot: (name: 'org_id') => never) =>
  db
    .updateTable('organisations')
    .set((eb) => ({ incident_seq: eb('incident_seq', '+', 1) }))
    .where('id', '=', slot('org_id'))
    .returning(['incident_seq', 'intake_mode']),
);
const SIGNAL_COLUMNS = [
  'id',
  'org_id',
  'incident_number',
  'status',
  'description',
  'title',
  'cve',
  'sku',
  'gtin',
  'product_id',
  'received_at',
  'source',
  'reporter_name',
  'reporter_contact',
] as const;
const insertQuery = queryTemplate((db, slot: (name: (typeof SIGNAL_COLUMNS)[number]) => never) =>
  db.insertInto('signals').values(Object.fromEntries(SIGNAL_COLUMNS.map((c) => [c, slot(c)])) as unknown as SignalRow),
);

/** A signal as listed to administrators, with the SKU of the product it matched. */
export interface SignalWithProduct extends SignalRow {
  product_sku: string | null;
}

export const signalsRepo = {
  /**
   * Hands out the organisation's next incident number and reads its intake mode in the same
   * statement. The UPDATE takes the organisation's row lock until the transaction ends, so
   * concurrent intakes (on any instance, on PostgreSQL too) queue here: no gap, no duplicate.
   */
  async claimIncidentNumber(trx: Trx, orgId: string): Promise<{ incidentNumber: number; intakeMode: IntakeMode }> {
    const [row] = await claimQuery(trx, { org_id: orgId });
    if (!row) throw new Error(`organisation ${orgId} does not exist`);
    return { incidentNumber: row.incident_seq, intakeMode: row.intake_mode };
  },

  async insert(db: Executor, signal: SignalRow): Promise<void> {
    await insertQuery(db, signal);
  },

  async setStatus(db: Executor, id: string, status: string): Promise<void> {
    await db.updateTable('signals').set({ status }).where('id', '=', id).execute();
  },

  /** Moves a signal from one status to another; false when it was no longer in `from`. */
  async setStatusFrom(
    db: Executor,
    id: string,
    from: string,
    to: string,
    extra: { triage_reason?: string | null; merged_into?: number | null } = {},
  ): Promise<boolean> {
    const result = await db
      .updateTable('signals')
      .set({ status: to, ...extra })
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async setProduct(db: Executor, id: string, productId: string): Promise<boolean> {
    const result = await db
      .updateTable('signals')
      .set({ product_id: productId })
      .where('id', '=', id)
      .where('status', '=', 'INCOMING')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  findByNumber(db: Executor, orgId: string, incidentNumber: number): Promise<SignalWithProduct | undefined> {
    return signalsWithProduct(db, orgId).where('s.incident_number', '=', incidentNumber).executeTakeFirst();
  },

  list(db: Executor, orgId: string, options: { unattributed?: boolean } = {}): Promise<SignalWithProduct[]> {
    let query = signalsWithProduct(db, orgId);
    if (options.unattributed) query = query.where('s.product_id', 'is', null);
    return query.orderBy('s.incident_number').execute();
  },
};

/** The organisation's signals with the SKU of the product they matched. */
function signalsWithProduct(db: Executor, orgId: string) {
  return db
    .selectFrom('signals as s')
    .leftJoin('products as p', 'p.id', 's.product_id')
    .selectAll('s')
    .select('p.sku as product_sku')
    .where('s.org_id', '=', orgId);
}
