import type { Executor } from '../db/index.js';
import type {
  DisclosureAttachmentRow,
  DisclosureMessageRow,
  DisclosureReportRow,
  DisclosureSettingsRow,
  Organisation,
  SignalRow,
} from '../db/schema.js';

// The disclosure tables: settings per organisation, reports with their follow-up link's digest,
// the conversation and the attachments' rows (their bytes are the attachment store's).

export const disclosureRepo = {
  settings(db: Executor, orgId: string): Promise<DisclosureSettingsRow | undefined> {
    return db.selectFrom('disclosure_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  },

  /**
   * The organisation of `slug` and its settings, only when its pages are enabled: one query, the
   * same whether the slug is unknown or its pages are disabled, so that both 404s take the same
   * time (disclosure.md). Reads organisations, which the orgs feature owns, by slug alone.
   */
  async enabledOrg(
    db: Executor,
    slug: string,
  ): Promise<(Pick<Organisation, 'id' | 'slug' | 'name'> & { settings: DisclosureSettingsRow }) | undefined> {
    const row = await db
      .selectFrom('organisations as o')
      .innerJoin('disclosure_settings as s', 's.org_id', 'o.id')
      .select(['o.id', 'o.slug', 'o.name'])
      .select(['s.enabled', 's.policy', 's.acknowledge_days', 's.preferred_languages', 's.expires_at', 's.updated_at'])
      .where('o.slug', '=', slug)
      .where('s.enabled', '=', 1)
      .executeTakeFirst();
    if (!row) return undefined;
    const { id, slug: orgSlug, name, ...settings } = row;
    return { id, slug: orgSlug, name, settings: { org_id: id, ...settings } };
  },

  async saveSettings(db: Executor, row: DisclosureSettingsRow): Promise<void> {
    const { org_id: _org, ...changes } = row;
    await db
      .insertInto('disclosure_settings')
      .values(row)
      .onConflict((oc) => oc.column('org_id').doUpdateSet(changes))
      .execute();
  },

  async insertReport(db: Executor, row: DisclosureReportRow): Promise<void> {
    await db.insertInto('disclosure_reports').values(row).execute();
  },

  /** The report of a live follow-up link in this organisation (by the token's digest). */
  reportByDigest(db: Executor, orgId: string, digest: string): Promise<DisclosureReportRow | undefined> {
    return db
      .selectFrom('disclosure_reports')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('token_digest', '=', digest)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  },

  reportOfSignal(db: Executor, signalId: string): Promise<DisclosureReportRow | undefined> {
    return db.selectFrom('disclosure_reports').selectAll().where('signal_id', '=', signalId).executeTakeFirst();
  },

  async revoke(db: Executor, signalId: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable('disclosure_reports')
      .set({ revoked_at: at })
      .where('signal_id', '=', signalId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async insertMessage(db: Executor, row: DisclosureMessageRow): Promise<void> {
    await db.insertInto('disclosure_messages').values(row).execute();
  },

  messages(db: Executor, signalId: string): Promise<DisclosureMessageRow[]> {
    return db.selectFrom('disclosure_messages').selectAll().where('signal_id', '=', signalId).orderBy('created_at').orderBy('id').execute();
  },

  async insertAttachments(db: Executor, rows: DisclosureAttachmentRow[]): Promise<void> {
    if (rows.length > 0) await db.insertInto('disclosure_attachments').values(rows).execute();
  },

  attachments(db: Executor, signalId: string): Promise<DisclosureAttachmentRow[]> {
    return db.selectFrom('disclosure_attachments').selectAll().where('signal_id', '=', signalId).orderBy('position').execute();
  },

  /** The signal of `incidentNumber` in this organisation (any source). */
  signal(db: Executor, orgId: string, incidentNumber: number): Promise<SignalRow | undefined> {
    return db
      .selectFrom('signals')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('incident_number', '=', incidentNumber)
      .executeTakeFirst();
  },

  signalById(db: Executor, id: string): Promise<SignalRow | undefined> {
    return db.selectFrom('signals').selectAll().where('id', '=', id).executeTakeFirst();
  },

  async setReporter(db: Executor, signalId: string, sealed: { name: string | null; contact: string | null }): Promise<void> {
    await db
      .updateTable('signals')
      .set({ reporter_name: sealed.name, reporter_contact: sealed.contact })
      .where('id', '=', signalId)
      .execute();
  },

  /** Active products of the organisation by name (public pages name products by name only). */
  activeProducts(db: Executor, orgId: string): Promise<Array<{ id: string; name: string; sku: string }>> {
    return db
      .selectFrom('products')
      .select(['id', 'name', 'sku'])
      .where('org_id', '=', orgId)
      .where('status', '=', 'active')
      .orderBy('name')
      .execute();
  },

  /** A case's progress as the reporter's follow-up page states it (read-only; the cases feature owns the table). */
  caseProgress(db: Executor, orgId: string, incidentNumber: number) {
    return db
      .selectFrom('cases')
      .select(['status', 'fix_available_at', 'advisory_published_at'])
      .where('org_id', '=', orgId)
      .where('incident_number', '=', incidentNumber)
      .executeTakeFirst();
  },

  async putBlob(db: Executor, key: string, data: Buffer, at: string): Promise<void> {
    await db.insertInto('disclosure_blobs').values({ storage_key: key, data, created_at: at }).execute();
  },

  async blob(db: Executor, key: string): Promise<Buffer | undefined> {
    const row = await db.selectFrom('disclosure_blobs').select('data').where('storage_key', '=', key).executeTakeFirst();
    return row ? Buffer.from(row.data) : undefined;
  },
};
