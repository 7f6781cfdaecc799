import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import type { Organisation, SignalRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { assertStorableText } from '../shared/storable-text.js';
import { iso, type Clock } from '../shared/time.js';
import type { DisclosureSettings, PublicOrg } from './disclosure-settings.js';
import { disclosureRepo } from './disclosure.repo.js';
import { digestOf, TOKEN_SHAPE } from './follow-token.js';
import { reportState, type ReportState } from './report-state.js';

// The conversation on a disclosure report (disclosure.md): the reporter's side through the
// follow-up link (state and messages, never which member wrote), the team's side on the signal
// and its case; each message and each revocation a registry entry without the text.

export const MESSAGE_CHARS = 10_000;

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
  attachments: Array<{ id: string; position: number; size: number }>;
  messages: ConversationMessage[];
}

type EnabledOrg = (slug: string) => Promise<{ org: PublicOrg; settings: DisclosureSettings } | null>;

export function createConversations(database: Database, orgs: OrgService, clock: Clock, enabledOrg: EnabledOrg) {
  /** The disclosure signal `incidentNumber` of the organisation, or 404 (another source, another tenant, none). */
  async function disclosed(orgSlug: string, incidentNumber: number) {
    const org = await orgs.requireOrg(orgSlug);
    const signal = await disclosureRepo.signal(database.db, org.id, incidentNumber);
    const report = signal ? await disclosureRepo.reportOfSignal(database.db, signal.id) : undefined;
    if (!signal || !report) throw new AppError('not_found', `no disclosure report ${incidentNumber}`);
    return { org, signal, report };
  }

  async function conversationOf(org: Pick<Organisation, 'id'>, signal: SignalRow): Promise<Conversation> {
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
      attachments: attachments.map((a) => ({ id: a.id, position: a.position, size: a.size })),
      messages: messages.map((m) => ({ author: m.author, actor: m.actor, body: m.body, at: m.created_at })),
    };
  }

  function checkMessage(text: string): string {
    const body = text.trim();
    if (!body) throw new AppError('validation_failed', 'Write a message.');
    if (body.length > MESSAGE_CHARS) throw new AppError('validation_failed', `A message holds at most ${MESSAGE_CHARS} characters.`);
    assertStorableText({ message: body });
    return body;
  }

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

  return {
    /** Used by the reports' side too: identity and attachments are read off the same report. */
    disclosed,
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
}
