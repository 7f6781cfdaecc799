import type { PortableMigration } from './types.js';

/**
 * One row that readiness rewrites while the database is known to be failing, to find out
 * whether writes work again (a full disk or a read-only file lets `select 1` through).
 */
export const writeProbe: PortableMigration = {
  name: '006-write-probe',
  async up(db) {
    await db.schema
      .createTable('write_probe')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('writes', 'integer', (c) => c.notNull())
      .execute();
  },
};
