import type { Executor } from '../db/index.js';
import type { CaseRow } from '../db/schema.js';

export type CaseUpdate = Partial<Pick<CaseRow, 'early_warning_sent_at' | 'notification_sent_at' | 'status' | 'closed_at'>>;

/** A case as listed to administrators, with its product's SKU. */
export interface CaseWithProduct extends CaseRow {
  product_sku: string | null;
}

export const casesRepo = {
  async insert(db: Executor, row: CaseRow): Promise<void> {
    await db.insertInto('cases').values(row).execute();
  },

  /**
   * Changes an open case, and only while `unset` (if given) is still null, so two concurrent
   * recordings cannot both succeed. Returns whether the row changed.
   */
  async updateOpen(
    db: Executor,
    id: string,
    change: CaseUpdate,
    unset?: 'early_warning_sent_at' | 'notification_sent_at',
  ): Promise<boolean> {
    let query = db.updateTable('cases').set(change).where('id', '=', id).where('status', '=', 'open');
    if (unset) query = query.where(unset, 'is', null);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Records the corrective measure of an open case, once. */
  async updateFix(db: Executor, id: string, change: { fix_available_at: string; fix_description: string | null }): Promise<boolean> {
    const result = await db
      .updateTable('cases')
      .set(change)
      .where('id', '=', id)
      .where('status', '=', 'open')
      .where('fix_available_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Replaces the confidential notes of a case, only while they are still `before` (no lost update). */
  async setNotes(db: Executor, id: string, before: string | null, notes: string): Promise<boolean> {
    let query = db.updateTable('cases').set({ notes }).where('id', '=', id);
    query = before === null ? query.where('notes', 'is', null) : query.where('notes', '=', before);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async setAdvisoryPublication(db: Executor, id: string, change: { advisory_published_at: string; advisory_url: string }): Promise<void> {
    await db.updateTable('cases').set(change).where('id', '=', id).execute();
  },

  findByNumber(db: Executor, orgId: string, incidentNumber: number): Promise<CaseWithProduct | undefined> {
    return casesWithProduct(db, orgId).where('c.incident_number', '=', incidentNumber).executeTakeFirst();
  },

  /** Every case of the organisation, open and closed, by incident number. */
  list(db: Executor, orgId: string): Promise<CaseWithProduct[]> {
    return casesWithProduct(db, orgId).orderBy('c.incident_number').execute();
  },
};

/** The organisation's cases with the SKU of their product. */
function casesWithProduct(db: Executor, orgId: string) {
  return db
    .selectFrom('cases as c')
    .leftJoin('products as p', 'p.id', 'c.product_id')
    .selectAll('c')
    .select('p.sku as product_sku')
    .where('c.org_id', '=', orgId);
}
