import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import type { DisclosureAttachmentRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import { receiveOutsideReport } from '../incidents/incidents.service.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import type { SecretBox } from '../shared/secret-box.js';
import { assertStorableText } from '../shared/storable-text.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { emitEvent } from '../webhooks/emit-event.js';
import type { AttachmentStore } from './attachment-store.js';
import { disclosureRepo } from './disclosure.repo.js';
import { newFollowToken } from './follow-token.js';
import { createConversations, MESSAGE_CHARS } from './disclosure-conversation.js';
import { createDisclosureSettings } from './disclosure-settings.js';

// Coordinated vulnerability disclosure (disclosure.md): the public pages' settings, a report
// becoming an INCOMING signal in the organisation's one numbering (with its registry entries and
// `signal.received`), the reporter's sealed identity and attachments, the follow-up link and the
// conversation. Knows no HTTP: the public pages, the console and cra-admin all call it. The
// settings (disclosure-settings.ts) and the conversation (disclosure-conversation.ts) live apart;
// this file receives reports and opens what is sealed.

export const SOURCE = 'disclosure';
export const LIMITS = { attachments: 5, attachmentBytes: 10 * 1024 * 1024, messageChars: MESSAGE_CHARS } as const;

export interface NewReport {
  /** A product's id from the public list, or null for "not sure". */
  productId: string | null;
  title: string | null;
  description: string;
  cve: string | null;
  affectedVersions: string | null;
  howFound: string | null;
  reporterName: string | null;
  reporterContact: string | null;
  credit: string | null;
  attachments: Array<{ name: string; bytes: Buffer }>;
}

export interface DisclosureDeps {
  clock?: Clock;
  /** Seals the reporter's identity (name, contact, credit line) and attachment names; null without CONSOLE_SECRET (reports are then refused). */
  box: SecretBox | null;
  attachments: AttachmentStore | null;
}

const optional = (value: string | null | undefined) => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
};

export function createDisclosureService(database: Database, orgs: OrgService, deps: DisclosureDeps) {
  const clock = deps.clock ?? systemClock;
  const pages = createDisclosureSettings(database, orgs, clock, () => void requireBox());
  const { enabledOrg } = pages;

  function requireBox(): SecretBox {
    if (!deps.box || !deps.attachments)
      throw new AppError('service_unavailable', 'disclosure needs CONSOLE_SECRET (the key that seals reporter data) on this database');
    return deps.box;
  }

  const conversations = createConversations(database, orgs, clock, enabledOrg);
  const { disclosed } = conversations;

  return {
    settings: pages.settings,
    configure: pages.configure,
    publicPages: pages.publicPages,
    followUp: conversations.followUp,
    reporterMessage: conversations.reporterMessage,
    conversation: conversations.conversation,
    isDisclosed: conversations.isDisclosed,
    teamMessage: conversations.teamMessage,
    revokeLink: conversations.revokeLink,

    /**
     * Stores a report as an INCOMING signal with its sealed identity and attachments, its
     * registry entries and `signal.received`; returns the follow-up token, shown once.
     */
    async receiveReport(slug: string, input: NewReport): Promise<{ incidentNumber: number; token: string } | null> {
      const found = await enabledOrg(slug);
      if (!found) return null;
      const box = requireBox();
      const store = deps.attachments!;
      const { org } = found;
      if (!input.description.trim()) throw new AppError('validation_failed', 'Describe the vulnerability.');
      if (input.attachments.length > LIMITS.attachments)
        throw new AppError('payload_too_large', `At most ${LIMITS.attachments} attachments.`);
      if (input.attachments.some((a) => a.bytes.length > LIMITS.attachmentBytes))
        throw new AppError('payload_too_large', 'An attachment is larger than 10 MiB.');
      const fields = {
        title: optional(input.title),
        cve: optional(input.cve),
        affectedVersions: optional(input.affectedVersions),
        howFound: optional(input.howFound),
        reporterName: optional(input.reporterName),
        reporterContact: optional(input.reporterContact),
        credit: optional(input.credit),
      };
      assertStorableText({ description: input.description, ...fields });
      const product = input.productId
        ? ((await disclosureRepo.activeProducts(database.db, org.id)).find((p) => p.id === input.productId) ?? null)
        : null;
      if (input.productId && !product) throw new AppError('validation_failed', 'Choose one of the listed products, or "not sure".');

      const { token, digest } = newFollowToken();
      const now = iso(clock());
      const files = input.attachments.map((a, i) => ({ key: store.newKey(), position: i + 1, ...a }));
      const staged: string[] = [];
      try {
        for (const f of files) {
          await store.stage(f.key, f.bytes);
          staged.push(f.key);
        }
        const signal = await database.transaction(async (trx) => {
          // The bytes first (PostgreSQL): the organisation's numbering lock, taken next, is then
          // held only for a few small rows, never while megabytes are written.
          for (const f of files) await store.save(trx, f.key, f.bytes, now);
          const stored = await receiveOutsideReport(trx, {
            orgId: org.id,
            source: SOURCE,
            at: now,
            product: product ? { id: product.id, sku: product.sku } : null,
            title: fields.title,
            description: input.description,
            cve: fields.cve,
          });
          await disclosureRepo.setReporter(trx, stored.id, {
            name: fields.reporterName ? box.seal(fields.reporterName) : null,
            contact: fields.reporterContact ? box.seal(fields.reporterContact) : null,
          });
          await disclosureRepo.insertReport(trx, {
            signal_id: stored.id,
            org_id: org.id,
            token_digest: digest,
            revoked_at: null,
            affected_versions: fields.affectedVersions,
            how_found: fields.howFound,
            sealed_credit: fields.credit ? box.seal(fields.credit) : null,
            created_at: now,
          });
          const rows: DisclosureAttachmentRow[] = [];
          for (const f of files) {
            rows.push({
              id: randomUUID(),
              org_id: org.id,
              signal_id: stored.id,
              position: f.position,
              storage_key: f.key,
              sealed_name: box.seal(f.name),
              size: f.bytes.length,
              created_at: now,
            });
          }
          await disclosureRepo.insertAttachments(trx, rows);
          const details = {
            incident_number: stored.incident_number,
            attachments: files.length,
            anonymous: !fields.reporterName && !fields.reporterContact,
          };
          await appendRegistryEntry(
            trx,
            org.id,
            { actor: SOURCE, action: 'disclosure.report_received', subject: `signal ${stored.incident_number}`, details },
            now,
          );
          await emitEvent(
            trx,
            org.id,
            'signal.received',
            { incident_number: stored.incident_number, product_sku: product?.sku ?? null, source: SOURCE },
            now,
          );
          return stored;
        });
        return { incidentNumber: signal.incident_number, token };
      } catch (error) {
        await Promise.all(staged.map((key) => store.discard(key).catch(() => undefined)));
        throw error;
      }
    },

    /**
     * The reporter's name, contact and credit line, opened (analysts and above): the registry
     * entry `disclosure.identity_read`.
     */
    async readIdentity(
      orgSlug: string,
      incidentNumber: number,
      actor = 'cli',
    ): Promise<{ name: string | null; contact: string | null; credit: string | null }> {
      const box = requireBox();
      const { org, signal, report } = await disclosed(orgSlug, incidentNumber);
      const at = iso(clock());
      await database.transaction((trx) =>
        appendRegistryEntry(
          trx,
          org.id,
          { actor, action: 'disclosure.identity_read', subject: `signal ${incidentNumber}`, details: { incident_number: incidentNumber } },
          at,
        ),
      );
      return {
        name: signal.reporter_name ? box.open(signal.reporter_name) : null,
        contact: signal.reporter_contact ? box.open(signal.reporter_contact) : null,
        credit: report.sealed_credit ? box.open(report.sealed_credit) : null,
      };
    },

    /** Names of the attachments (sealed at rest), for analysts and above. */
    async attachmentNames(orgSlug: string, incidentNumber: number): Promise<Map<string, string>> {
      const box = requireBox();
      const { signal } = await disclosed(orgSlug, incidentNumber);
      const rows = await disclosureRepo.attachments(database.db, signal.id);
      return new Map(rows.map((r) => [r.id, box.open(r.sealed_name)]));
    },

    /** One attachment's name and bytes (analysts and above); 404 for another report's or tenant's id. */
    async attachment(orgSlug: string, incidentNumber: number, attachmentId: string): Promise<{ name: string; bytes: Buffer }> {
      const box = requireBox();
      const { signal } = await disclosed(orgSlug, incidentNumber);
      const row = (await disclosureRepo.attachments(database.db, signal.id)).find((a) => a.id === attachmentId);
      if (!row) throw new AppError('not_found', 'no such attachment');
      return { name: box.open(row.sealed_name), bytes: await deps.attachments!.read(row.storage_key) };
    },
  };
}

export type DisclosureService = ReturnType<typeof createDisclosureService>;
export type { Conversation, ConversationMessage } from './disclosure-conversation.js';
export type { DisclosureSettings, SettingsChange } from './disclosure-settings.js';
