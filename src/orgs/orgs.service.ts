import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import type { IntakeMode, Organisation } from '../db/schema.js';
import { AppError } from '../errors.js';
import { appendRegistryEntry } from '../registry/registry.service.js';
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

export function toOrganisationView(org: Organisation): OrganisationView {
  return { id: org.id, slug: org.slug, name: org.name, intake_mode: org.intake_mode };
}

export function createOrgService(database: Database, clock: Clock = systemClock) {
  async function requireOrg(slug: string): Promise<Organisation> {
    // A slug no database could hold names no organisation (PostgreSQL would refuse the query).
    const org = isStorableText(slug) ? await orgsRepo.findBySlug(database.db, slug) : undefined;
    if (!org) throw new AppError('not_found', `no organisation with slug "${slug}"`);
    return org;
  }

  return {
    requireOrg,

    async createOrg(input: { slug: string; name?: string; intakeMode?: IntakeMode }): Promise<OrganisationView> {
      assertStorableText({ name: input.name });
      if (!SLUG.test(input.slug)) {
        throw new AppError('validation_failed', 'slug must be 1–63 lower-case letters, digits or hyphens');
      }
      if (await orgsRepo.findBySlug(database.db, input.slug)) {
        throw new AppError('conflict', `organisation "${input.slug}" already exists`);
      }
      const now = iso(clock());
      const org = {
        id: randomUUID(),
        slug: input.slug,
        name: input.name?.trim() || input.slug,
        intake_mode: input.intakeMode ?? 'signal',
        created_at: now,
        registry_head: GENESIS_HASH,
      };
      await database.transaction(async (trx) => {
        await orgsRepo.insert(trx, org);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: 'cli', action: 'org.created', subject: org.slug, details: { name: org.name, intake_mode: org.intake_mode } },
          now,
        );
      });
      return toOrganisationView({ ...org, incident_seq: 0, registry_seq: 1 });
    },

    async listOrgs(): Promise<OrganisationView[]> {
      return (await orgsRepo.list(database.db)).map(toOrganisationView);
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
