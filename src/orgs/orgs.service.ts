import { randomUUID } from 'node:crypto';
import { isUniqueViolation, type Database, type Trx } from '../db/index.js';
import type { IntakeMode, Organisation } from '../db/schema.js';
import { isMemberState, MEMBER_STATES } from '../shared/member-states.js';
import { AppError } from '../errors.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { GENESIS_HASH } from '../registry/registry-chain.js';
import { assertStorableText, isStorableText } from '../shared/storable-text.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { orgsRepo } from './orgs.repo.js';

export interface OrganisationView {
  id: string;
  slug: string;
  name: string;
  intake_mode: IntakeMode;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function toOrganisationView(org: Pick<Organisation, 'id' | 'slug' | 'name' | 'intake_mode'>): OrganisationView {
  return { id: org.id, slug: org.slug, name: org.name, intake_mode: org.intake_mode };
}

/** What the Article 14 reports say about the manufacturer (art14.md). */
export interface OrganisationDetails {
  legal_name: string | null;
  postal_address: string | null;
  contact_email: string | null;
  member_state: string | null;
}

export interface OrganisationDetailsInput {
  legalName?: string;
  postalAddress?: string;
  contactEmail?: string;
  memberState?: string;
}

export function toOrganisationDetails(org: Organisation): OrganisationDetails {
  return {
    legal_name: org.legal_name,
    postal_address: org.postal_address,
    contact_email: org.contact_email,
    member_state: org.member_state,
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Checks and normalises the given details; an empty string clears a value. */
function checkedDetails(input: OrganisationDetailsInput): Partial<OrganisationDetails> {
  assertStorableText({
    legal_name: input.legalName,
    address: input.postalAddress,
    contact_email: input.contactEmail,
    member_state: input.memberState,
  });
  const change: Partial<OrganisationDetails> = {};
  const text = (v: string) => v.trim() || null;
  if (input.legalName !== undefined) change.legal_name = text(input.legalName);
  if (input.postalAddress !== undefined) change.postal_address = text(input.postalAddress);
  if (input.contactEmail !== undefined) {
    const email = text(input.contactEmail);
    if (email !== null && !EMAIL.test(email)) throw new AppError('validation_failed', `"${email}" is not an e-mail address`);
    change.contact_email = email;
  }
  if (input.memberState !== undefined) {
    const code = input.memberState.trim().toUpperCase() || null;
    if (code !== null && !isMemberState(code)) {
      throw new AppError('validation_failed', `member state must be one of the 27 ISO 3166-1 codes: ${MEMBER_STATES.join(', ')}`);
    }
    change.member_state = code;
  }
  return change;
}

export interface NewOrganisation {
  slug: string;
  name?: string;
  intakeMode?: IntakeMode;
}

/** Why `slug` cannot name an organisation, or null when it can. */
export function slugProblem(slug: string): string | null {
  return SLUG.test(slug) ? null : 'slug must be 1–63 lower-case letters, digits or hyphens';
}

function checkNewOrg(input: NewOrganisation): void {
  assertStorableText({ name: input.name });
  const problem = slugProblem(input.slug);
  if (problem) throw new AppError('validation_failed', problem);
}

/** A slug made from a display name: lower-case ASCII letters and digits joined by hyphens ("Acme Devices GmbH" → "acme-devices-gmbh"). */
export function slugFrom(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return slug || 'org';
}

export function createOrgService(database: Database, clock: Clock = systemClock) {
  async function insertOrg(trx: Trx, input: NewOrganisation, actor: string): Promise<OrganisationView> {
    const now = iso(clock());
    const org = {
      id: randomUUID(),
      slug: input.slug,
      name: input.name?.trim() || input.slug,
      intake_mode: input.intakeMode ?? 'signal',
      created_at: now,
      registry_head: GENESIS_HASH,
      legal_name: null,
      postal_address: null,
      contact_email: null,
      member_state: null,
    };
    await orgsRepo.insert(trx, org);
    await appendRegistryEntry(
      trx,
      org.id,
      { actor, action: 'org.created', subject: org.slug, details: { name: org.name, intake_mode: org.intake_mode } },
      now,
    );
    return toOrganisationView(org);
  }

  async function requireOrg(slug: string): Promise<Organisation> {
    // A slug no database could hold names no organisation (PostgreSQL would refuse the query).
    const org = isStorableText(slug) ? await orgsRepo.findBySlug(database.db, slug) : undefined;
    if (!org) throw new AppError('not_found', `no organisation with slug "${slug}"`);
    return org;
  }

  return {
    requireOrg,

    async createOrg(input: NewOrganisation): Promise<OrganisationView> {
      checkNewOrg(input);
      if (await orgsRepo.findBySlug(database.db, input.slug)) {
        throw new AppError('conflict', `organisation "${input.slug}" already exists`);
      }
      try {
        return await database.transaction((trx) => insertOrg(trx, input, 'cli'));
      } catch (error) {
        // Another create of the same slug committed between the check above and this insert.
        if (isUniqueViolation(error)) throw new AppError('conflict', `organisation "${input.slug}" already exists`);
        throw error;
      }
    },

    /**
     * The same inside the caller's transaction (the first-run set-up creates the owner in the same
     * one). A slug taken meanwhile fails the transaction with a unique violation.
     */
    async createOrgIn(trx: Trx, input: NewOrganisation, actor: string): Promise<OrganisationView> {
      checkNewOrg(input);
      if (await orgsRepo.findBySlug(trx, input.slug)) throw new AppError('conflict', `organisation "${input.slug}" already exists`);
      return insertOrg(trx, input, actor);
    },

    async listOrgs(): Promise<OrganisationView[]> {
      return (await orgsRepo.list(database.db)).map(toOrganisationView);
    },

    async describeOrg(slug: string): Promise<OrganisationView & OrganisationDetails> {
      const org = await requireOrg(slug);
      return { ...toOrganisationView(org), ...toOrganisationDetails(org) };
    },

    /** Legal name, postal address, security contact and Member State, for the Article 14 reports. */
    async setDetails(slug: string, input: OrganisationDetailsInput, actor = 'cli'): Promise<OrganisationView & OrganisationDetails> {
      const org = await requireOrg(slug);
      const change = checkedDetails(input);
      if (Object.keys(change).length === 0) throw new AppError('validation_failed', 'nothing to change');
      await database.transaction(async (trx) => {
        await orgsRepo.setDetails(trx, org.id, change);
        await appendRegistryEntry(trx, org.id, { actor, action: 'org.details_changed', subject: org.slug, details: change }, iso(clock()));
      });
      const updated = { ...org, ...change };
      return { ...toOrganisationView(updated), ...toOrganisationDetails(updated) };
    },

    async setIntakeMode(slug: string, mode: IntakeMode): Promise<OrganisationView> {
      const org = await requireOrg(slug);
      await database.transaction(async (trx) => {
        await orgsRepo.setIntakeMode(trx, org.id, mode);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: 'cli', action: 'org.intake_mode_changed', subject: org.slug, details: { from: org.intake_mode, to: mode } },
          iso(clock()),
        );
      });
      return toOrganisationView({ ...org, intake_mode: mode });
    },
  };
}

export type OrgService = ReturnType<typeof createOrgService>;
