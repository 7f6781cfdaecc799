import { sql } from 'kysely';
import type { Executor } from '../db/index.js';
import { queryTemplate } from '../db/query-template.js';
import type { NewProduct, ProductRow, ProductUpdate } from '../db/schema.js';

export interface ProductWithCaseCounts extends ProductRow {
  open_cases: number;
  open_notifiable_cases: number;
}

// Product matching runs on every intake: compiled once (see queryTemplate).
const bySkuQuery = queryTemplate((db, slot: (name: 'org_id' | 'sku') => never) =>
  db.selectFrom('products').selectAll().where('org_id', '=', slot('org_id')).where('sku', '=', slot('sku')),
);
const byGtinQuery = queryTemplate((db, slot: (name: 'org_id' | 'gtin') => never) =>
  db.selectFrom('products').selectAll().where('org_id', '=', slot('org_id')).where('gtin', '=', slot('gtin')),
);

export const productsRepo = {
  async insert(db: Executor, product: NewProduct): Promise<void> {
    await db.insertInto('products').values(product).execute();
  },

  async update(db: Executor, id: string, change: ProductUpdate): Promise<void> {
    await db.updateTable('products').set(change).where('id', '=', id).execute();
  },

  async findBySku(db: Executor, orgId: string, sku: string): Promise<ProductRow | undefined> {
    return (await bySkuQuery(db, { org_id: orgId, sku }))[0];
  },

  async findByGtin(db: Executor, orgId: string, gtin: string): Promise<ProductRow | undefined> {
    return (await byGtinQuery(db, { org_id: orgId, gtin }))[0];
  },

  /** All of the organisation's products, archived included, with their open-case counts. */
  listWithCaseCounts(db: Executor, orgId: string): Promise<ProductWithCaseCounts[]> {
    return db
      .selectFrom('products as p')
      .selectAll('p')
      .select((eb) => [
        eb
          .selectFrom('cases as c')
          .select(sql<number>`cast(count(*) as integer)`.as('n'))
          .whereRef('c.product_id', '=', 'p.id')
          .where('c.status', '=', 'open')
          .as('open_cases'),
        eb
          .selectFrom('cases as c')
          .select(sql<number>`cast(count(*) as integer)`.as('n'))
          .whereRef('c.product_id', '=', 'p.id')
          .where('c.status', '=', 'open')
          .where('c.notifiable', '=', 1)
          .as('open_notifiable_cases'),
      ])
      .where('p.org_id', '=', orgId)
      .orderBy('p.sku')
      .execute() as Promise<ProductWithCaseCounts[]>;
  },
};
