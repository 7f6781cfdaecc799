import type { PortableMigration } from './types.js';

// A component's purl and ref stored abbreviated around its "name@version" (issue 27, item 5:
// they were ~70 of the ~150 bytes a row held): `forms` says which of them is (FORMS in
// src/sbom/parse/component-rows.ts). Rows stored before keep their values whole (forms 0), as
// any value that cannot be abbreviated exactly: nothing is rewritten. A column with a constant
// default is added without rewriting the table, on both backends.
export const abbreviatedComponents: PortableMigration = {
  name: '015-abbreviated-components',
  async up(db, t) {
    await db.schema
      .alterTable('components')
      .addColumn('forms', t.uuid === 'uuid' ? 'smallint' : 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
