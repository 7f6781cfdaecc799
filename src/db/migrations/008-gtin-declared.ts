import { sql } from 'kysely';
import type { PortableMigration } from './types.js';

// decisions §2: a GTIN is matched in its 14-digit form but returned exactly as declared.
// `products.gtin` stays the 14-digit match key (and keeps its per-organisation uniqueness);
// `gtin_declared` holds the string the administrator gave. Products added before this migration
// were stored only in the 14-digit form, so that is all that can be recovered for them: their
// declared form is the 14-digit one until the next `product update --gtin`.
export const gtinDeclared: PortableMigration = {
  name: '008-gtin-declared',
  async up(db) {
    await db.schema.alterTable('products').addColumn('gtin_declared', 'text').execute();
    await sql`update products set gtin_declared = gtin where gtin is not null`.execute(db);
  },
};
