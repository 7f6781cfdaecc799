import type { Kysely } from 'kysely';
import { createSecretBox } from '../../shared/secret-box.js';
import type { PortableMigration } from './types.js';

// A disclosure report's credit line ("how you want to be credited", usually the reporter's name)
// was stored in the clear and shown to every member of the organisation, viewers included, who
// get 404 for the reporter's sealed name and contact. It is sealed now as they are, under the
// same key, and shown with them; the column's name says what it holds.

/** The purpose the reporter's identity is sealed under (services.ts), as it was when 017 shipped. */
const DISCLOSURE_PURPOSE = 'cra-disclosure';

export const sealedCreditLines: PortableMigration = {
  name: '017-sealed-credit-lines',
  async up(db, _t, secrets) {
    const plain: Array<{ signal_id: string; credit: string }> = await db
      .selectFrom('disclosure_reports')
      .select(['signal_id', 'credit'])
      .where('credit', 'is not', null)
      .execute();
    // Checked before anything changes: the start retries once CONSOLE_SECRET is set. The
    // reports' identities were sealed under this key; without it they cannot be read either.
    if (plain.length > 0 && !secrets?.consoleSecret)
      throw new Error(
        'migration 017 seals the credit lines of disclosure reports under the key that sealed their reporters: set CONSOLE_SECRET',
      );
    const box = secrets?.consoleSecret ? createSecretBox(secrets.consoleSecret, DISCLOSURE_PURPOSE) : null;
    // biome-ignore lint/suspicious/noExplicitAny: the schema as it was then
    const seal = async (trx: Kysely<any>) => {
      await trx.schema.alterTable('disclosure_reports').renameColumn('credit', 'sealed_credit').execute();
      for (const row of plain) {
        await trx
          .updateTable('disclosure_reports')
          .set({ sealed_credit: box!.seal(row.credit) })
          .where('signal_id', '=', row.signal_id)
          .execute();
      }
    };
    // PostgreSQL runs each migration in a transaction; SQLite's migrator does not (Kysely), so
    // this one takes its own: never a renamed column with half its lines sealed.
    if (db.isTransaction) await seal(db);
    else await db.transaction().execute(seal);
  },
};
