import type { Executor } from '../db/index.js';
import type { IntakeMode, Organisation } from '../db/schema.js';

export const orgsRepo = {
  async insert(db: Executor, org: Omit<Organisation, 'incident_seq' | 'registry_seq' | 'number' | 'sbom_policy'>): Promise<void> {
    await db.insertInto('organisations').values(org).execute();
  },
  findBySlug(db: Executor, slug: string): Promise<Organisation | undefined> {
    return db.selectFrom('organisations').selectAll().where('slug', '=', slug).executeTakeFirst();
  },
  findById(db: Executor, id: string): Promise<Organisation | undefined> {
    return db.selectFrom('organisations').selectAll().where('id', '=', id).executeTakeFirst();
  },
  list(db: Executor): Promise<Organisation[]> {
    return db.selectFrom('organisations').selectAll().orderBy('slug').execute();
  },
  async setDetails(
    db: Executor,
    id: string,
    change: Partial<Pick<Organisation, 'legal_name' | 'postal_address' | 'contact_email' | 'member_state'>>,
  ): Promise<void> {
    await db.updateTable('organisations').set(change).where('id', '=', id).execute();
  },
  async setIntakeMode(db: Executor, id: string, mode: IntakeMode): Promise<void> {
    await db.updateTable('organisations').set({ intake_mode: mode }).where('id', '=', id).execute();
  },
};
