import type { Database } from '../db/index.js';
import type { DisclosureSettingsRow, Organisation } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { assertStorableText, isStorableText } from '../shared/storable-text.js';
import { iso, type Clock } from '../shared/time.js';
import { disclosureRepo } from './disclosure.repo.js';
import { normaliseLanguages } from './security-txt.js';

// The public disclosure pages' settings per organisation (disclosure.md): enabled or not, the
// policy, the acknowledgement time, security.txt's languages and expiry; and what the pages show.

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

/** What the public pages know of an organisation. */
export type PublicOrg = Pick<Organisation, 'id' | 'slug' | 'name'>;

export interface SettingsChange {
  enabled?: boolean;
  policy?: string;
  acknowledgeDays?: number;
  preferredLanguages?: string;
  /** Sets Expires one year from now. */
  renewExpiry?: boolean;
}

/** `requireSealing` throws when reports could not be sealed (no CONSOLE_SECRET): pages are not enabled then. */
export function createDisclosureSettings(database: Database, orgs: OrgService, clock: Clock, requireSealing: () => void) {
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

  /**
   * The organisation when its pages are enabled; null otherwise, exactly as for a slug that does
   * not exist, and after the same one query (disclosureRepo.enabledOrg).
   */
  async function enabledOrg(slug: string): Promise<{ org: PublicOrg; settings: DisclosureSettings } | null> {
    // A slug no database could hold names no organisation (PostgreSQL would refuse the query).
    if (!isStorableText(slug)) return null;
    const found = await disclosureRepo.enabledOrg(database.db, slug);
    if (!found) return null;
    const { settings, ...org } = found;
    return { org, settings: viewOf(settings) };
  }

  return {
    enabledOrg,

    async settings(orgSlug: string): Promise<DisclosureSettings> {
      const org = await orgs.requireOrg(orgSlug);
      return viewOf(await disclosureRepo.settings(database.db, org.id));
    },

    /** Changes the pages' settings (owners and admins, `cra-admin disclosure`); a registry entry without the policy's text. */
    async configure(orgSlug: string, change: SettingsChange, actor = 'cli'): Promise<DisclosureSettings> {
      const org = await orgs.requireOrg(orgSlug);
      if (change.enabled) requireSealing();
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
  };
}
