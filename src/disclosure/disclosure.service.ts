import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import type { DisclosureAttachmentRow, DisclosureSettingsRow, Organisation, SignalRow } from '../db/schema.js';
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
import { digestOf, newFollowToken, TOKEN_SHAPE } from './follow-token.js';
import { reportState, type ReportState } from './report-state.js';
import { normaliseLanguages } from './security-txt.js';

// Coordinated vulnerability disclosure (disclosure.md): the public pages' settings, a report
// becoming an INCOMING signal in the organisation's one numbering (with its registry entries and
// `signal.received`), the reporter's sealed identity and attachments, the follow-up link and the
// conversation. Knows no HTTP: the public pages, the console and cra-admin all call it.

export const SOURCE = 'disclosure';
export const LIMITS = { attachments: 5, attachmentBytes: 10 * 1024 * 1024, messageChars: 10_000 } as const;
const YEAR_MS = 365 * 24 * 3_600_000;
const DAY_MS = 24 * 3_600_000;

export interface DisclosureSettings {
  enabled: boolean;
  policy: string;
  acknowledgeDays: number;
  preferredLanguages: string;
  expiresAt: string;
  /** Expires within 30 days (or has): the console warns. */
  expiresSoon: boolean;
}

export interface SettingsChange {
  enabled?: boolean;
  policy?: string;
  acknowledgeDays?: number;
  preferredLanguages?: string;
  /** Sets Expires one year from now. */
  renewExpiry?: boolean;
}

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

export interface ConversationMessage {
  author: 'reporter' | 'team';
  /** The team member for the team's messages; never shown to the reporter. */
  actor: string;
  body: string;
  at: string;
}

export interface Conversation {
  incidentNumber: number;
  state: ReportState;
  linkRevoked: boolean;
  affectedVersions: string | null;
  howFound: string | null;
  credit: string | null;
  attachments: Array<{ id: string; position: number; size: number }>;
  messages: ConversationMessage[];
}

export interface DisclosureDeps {
  clock?: Clock;
  /** Seals the reporter's identity and attachment names; null without CONSOLE_SECRET (reports are then refused). */
  box: SecretBox | null;
  attachments: AttachmentStore | null;
}

const optional = (value: string | null | undefined) => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
};

export function createDisclosureService(database: Database, orgs: OrgService, deps: DisclosureDeps) {
  const clock = deps.clock ?? systemClock;

  function viewOf(row: DisclosureSettingsRow | undefined): DisclosureSettings {
    const now = clock().getTime();
    const expiresAt = row?.expires_at ?? iso(new Date(now + YEAR_MS));
    return {
      enabled: row?.enabled === 1,
      policy: row?.policy ?? '',
      acknowledgeDays: row?.acknowledge_days ?? 5,
      preferredLanguages: row?.preferred_languages ?? 'en',
      expiresAt,
      expiresSoon: Date.parse(expiresAt) - now <= 30 * DAY_MS,
    };
  }

  /** The organisation when its pages are enabled; null otherwise, exactly as for a slug that does not exist. */
  async function enabledOrg(slug: string): Promise<{ org: Organisation; settings: DisclosureSettings } | null> {
    const org = await orgs.requireOrg(slug).catch((error) => {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    });
    if (!org) return null;
    const settings = viewOf(await disclosureRepo.settings(database.db, org.id));
    return settings.enabled ? { org, settings } : null;
  }

  /** The disclosure signal `incidentNumber` of the organisation, or 404 (another source, another tenant, none). */
  async function disclosed(orgSlug: string, incidentNumber: number) {
    const org = await orgs.requireOrg(orgSlug);
    const signal = await disclosureRepo.signal(database.db, org.id, incidentNumber);
    const report = signal ? await disclosureRepo.reportOfSignal(database.db, signal.id) : undefined;
    if (!signal || !report) throw new AppError('not_found', `no disclosure report ${incidentNumber}`);
    return { org, signal, report };
  }

  async function conversationOf(org: Organisation, signal: SignalRow): Promise<Conversation> {
    const report = (await disclosureRepo.reportOfSignal(database.db, signal.id))!;
    const [messages, attachments] = await Promise.all([
      disclosureRepo.messages(database.db, signal.id),
      disclosureRepo.attachments(database.db, signal.id),
    ]);
    const caseNumber = signal.status === 'MERGED' ? signal.merged_into : signal.status === 'CASE_OPENED' ? signal.incident_number : null;
    const kase = caseNumber ? ((await disclosureRepo.caseProgress(database.db, org.id, caseNumber)) ?? null) : null;
    const teamActed = messages.some((m) => m.author === 'team');
    return {
      incidentNumber: signal.incident_number,
      state: reportState(signal.status, kase, teamActed),
      linkRevoked: report.revoked_at !== null,
      affectedVersions: report.affected_versions,
      howFound: report.how_found,
      credit: report.credit,
      attachments: attachments.map((a) => ({ id: a.id, position: a.position, size: a.size })),
      messages: messages.map((m) => ({ author: m.author, actor: m.actor, body: m.body, at: m.created_at })),
    };
  }

  function requireBox(): SecretBox {
    if (!deps.box || !deps.attachments)
      throw new AppError('service_unavailable', 'disclosure needs CONSOLE_SECRET (the key that seals reporter data) on this database');
    return deps.box;
  }

  function checkMessage(text: string): string {
    const body = text.trim();
    if (!body) throw new AppError('validation_failed', 'Write a message.');
    if (body.length > LIMITS.messageChars)
      throw new AppError('validation_failed', `A message holds at most ${LIMITS.messageChars} characters.`);
    assertStorableText({ message: body });
    return body;
  }

  return {
    async settings(orgSlug: string): Promise<DisclosureSettings> {
      const org = await orgs.requireOrg(orgSlug);
      return viewOf(await disclosureRepo.settings(database.db, org.id));
    },

    /** Changes the pages' settings (owners and admins, `cra-admin disclosure`); a registry entry without the policy's text. */
    async configure(orgSlug: string, change: SettingsChange, actor = 'cli'): Promise<DisclosureSettings> {
      const org = await orgs.requireOrg(orgSlug);
      if (change.enabled) requireBox();
      if (
        change.acknowledgeDays !== undefined &&
        !(Number.isInteger(change.acknowledgeDays) && change.acknowledgeDays >= 1 && change.acknowledgeDays <= 90)
      )
        throw new AppError('validation_failed', 'The acknowledgement time is a whole number of days from 1 to 90.');
      let languages: string | undefined;
      if (change.preferredLanguages !== undefined) {
        const normalised = normaliseLanguages(change.preferredLanguages);
        if (!normalised) throw new AppError('validation_failed', 'Give language tags separated by commas, such as "en, de".');
        languages = normalised;
      }
      if (change.policy !== undefined) {
        if (change.policy.length > 20_000) throw new AppError('validation_failed', 'The policy holds at most 20000 characters.');
        assertStorableText({ policy: change.policy });
      }
      const now = clock();
      return database.transaction(async (trx) => {
        const current = await disclosureRepo.settings(trx, org.id);
        const view = viewOf(current);
        const row: DisclosureSettingsRow = {
          org_id: org.id,
          enabled: (change.enabled ?? view.enabled) ? 1 : 0,
          policy: change.policy ?? view.policy,
          acknowledge_days: change.acknowledgeDays ?? view.acknowledgeDays,
          preferred_languages: languages ?? view.preferredLanguages,
          expires_at: change.renewExpiry || !current ? iso(new Date(now.getTime() + YEAR_MS)) : view.expiresAt,
          updated_at: iso(now),
        };
        await disclosureRepo.saveSettings(trx, row);
        const details = {
          enabled: row.enabled === 1,
          acknowledge_days: row.acknowledge_days,
          preferred_languages: row.preferred_languages,
          expires_at: row.expires_at,
          policy_chars: row.policy.length,
        };
        await appendRegistryEntry(
          trx,
          org.id,
          { actor, action: 'disclosure.settings_changed', subject: `org ${org.slug}`, details },
          iso(now),
        );
        return viewOf(row);
      });
    },

    /** What the public pages show: null when disabled or unknown (the same 404 for both). */
    async publicPages(slug: string) {
      const found = await enabledOrg(slug);
      if (!found) return null;
      const products = await disclosureRepo.activeProducts(database.db, found.org.id);
      return {
        org: { id: found.org.id, slug: found.org.slug, name: found.org.name },
        settings: found.settings,
        products: products.map((p) => ({ id: p.id, name: p.name })),
      };
    },

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
            credit: fields.credit,
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

    /** The reporter's view through the follow-up link; null for an unknown, revoked or other organisation's link. */
    async followUp(slug: string, token: string) {
      const found = await enabledOrg(slug);
      if (!found || !TOKEN_SHAPE.test(token)) return null;
      const report = await disclosureRepo.reportByDigest(database.db, found.org.id, digestOf(token));
      if (!report) return null;
      const signal = (await disclosureRepo.signalById(database.db, report.signal_id))!;
      const conversation = await conversationOf(found.org, signal);
      return {
        org: { slug: found.org.slug, name: found.org.name },
        acknowledgeDays: found.settings.acknowledgeDays,
        incidentNumber: signal.incident_number,
        title: signal.title,
        receivedAt: signal.received_at,
        state: conversation.state,
        // The reporter sees who wrote (them or the team), never which member.
        messages: conversation.messages.map(({ author, body, at }) => ({ author, body, at })),
      };
    },

    /** A message from the reporter through the follow-up link; false when the link is not (or no longer) valid. */
    async reporterMessage(slug: string, token: string, text: string): Promise<boolean> {
      const found = await enabledOrg(slug);
      if (!found || !TOKEN_SHAPE.test(token)) return false;
      const body = checkMessage(text);
      const report = await disclosureRepo.reportByDigest(database.db, found.org.id, digestOf(token));
      if (!report) return false;
      const signal = (await disclosureRepo.signalById(database.db, report.signal_id))!;
      await addMessage(found.org.id, signal, 'reporter', 'reporter', body);
      return true;
    },

    /** The conversation on a disclosure signal, for the team (any member may read it); 404 when the signal is not one. */
    async conversation(orgSlug: string, incidentNumber: number): Promise<Conversation> {
      const { org, signal } = await disclosed(orgSlug, incidentNumber);
      return conversationOf(org, signal);
    },

    /** Whether the signal came through the disclosure door (the console shows its Conversation panel then). */
    async isDisclosed(orgSlug: string, incidentNumber: number): Promise<boolean> {
      const org = await orgs.requireOrg(orgSlug);
      const signal = await disclosureRepo.signal(database.db, org.id, incidentNumber);
      return signal ? (await disclosureRepo.reportOfSignal(database.db, signal.id)) !== undefined : false;
    },

    /** The team's answer (analysts and above); a registry entry naming the actor, never the text. */
    async teamMessage(orgSlug: string, incidentNumber: number, text: string, actor = 'cli'): Promise<void> {
      const body = checkMessage(text);
      const { org, signal } = await disclosed(orgSlug, incidentNumber);
      await addMessage(org.id, signal, 'team', actor, body);
    },

    /** The reporter's name and contact, opened (analysts and above): the registry entry `disclosure.identity_read`. */
    async readIdentity(orgSlug: string, incidentNumber: number, actor = 'cli'): Promise<{ name: string | null; contact: string | null }> {
      const box = requireBox();
      const { org, signal } = await disclosed(orgSlug, incidentNumber);
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

    /** Ends the reporter's link: it then answers as any unknown one. */
    async revokeLink(orgSlug: string, incidentNumber: number, actor = 'cli'): Promise<{ revoked: boolean }> {
      const { org, signal } = await disclosed(orgSlug, incidentNumber);
      const at = iso(clock());
      return database.transaction(async (trx) => {
        const revoked = await disclosureRepo.revoke(trx, signal.id, at);
        if (revoked) {
          await appendRegistryEntry(
            trx,
            org.id,
            { actor, action: 'disclosure.link_revoked', subject: `signal ${incidentNumber}`, details: { incident_number: incidentNumber } },
            at,
          );
        }
        return { revoked };
      });
    },
  };

  async function addMessage(orgId: string, signal: SignalRow, author: 'reporter' | 'team', actor: string, body: string): Promise<void> {
    const at = iso(clock());
    await database.transaction(async (trx) => {
      await disclosureRepo.insertMessage(trx, {
        id: randomUUID(),
        org_id: orgId,
        signal_id: signal.id,
        author,
        actor,
        body,
        created_at: at,
      });
      await appendRegistryEntry(
        trx,
        orgId,
        {
          actor,
          action: 'disclosure.message_sent',
          subject: `signal ${signal.incident_number}`,
          details: { incident_number: signal.incident_number, author },
        },
        at,
      );
    });
  }
}

export type DisclosureService = ReturnType<typeof createDisclosureService>;
