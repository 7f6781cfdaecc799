import { type Database, isUniqueViolation } from '../db/index.js';
import { AppError } from '../errors.js';
import { type OrgService, slugFrom, slugProblem } from '../orgs/orgs.service.js';
import type { SecretBox } from '../shared/secret-box.js';
import { isStorableText } from '../shared/storable-text.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { digestToken, joinOrganisation, newAccount, newToken, startSession } from './accounts.js';
import { setupRepo } from './setup.repo.js';
import { usersRepo } from './users.repo.js';
import { DEFAULT_SESSION_LIMITS, normaliseEmail, type SessionLimits } from './users.service.js';

// First-run set-up (console.md): while the database holds no console user, a one-time link
// creates the first organisation and its owner, who then enrols an authenticator like any
// invited person. The link is as strong as an invitation (256 random bits, only the digest
// stored), works once, and lives until it is used or until a server starts on this database
// (every start clears the links, on every instance: "restart" is any instance's start).

export const LINK_REFUSED =
  'This set-up link is unknown, already used, or was printed before the server last started. Use the link printed where the server started most recently, or print a new one with: npx cra-admin setup-link';
export const ALREADY_SET_UP = 'This instance is already set up: sign in, or ask an owner of your organisation for an invitation.';

export interface SetupInput {
  orgName: string;
  /** Empty: made from the name. */
  orgSlug: string;
  email: string;
  password: string;
}

/** A validation error shown next to `field` of the set-up form. */
function fieldError(field: string, message: string): AppError {
  return new AppError('validation_failed', message, [{ path: field, message }]);
}

export function createSetupService(
  database: Database,
  orgs: OrgService,
  options: { clock?: Clock; box?: SecretBox | null; sessions?: SessionLimits } = {},
) {
  const clock = options.clock ?? systemClock;
  const limits = options.sessions ?? DEFAULT_SESSION_LIMITS;
  const db = database.db;
  // Users are never deleted: once one exists the instance stays set up, and this process stops asking.
  let setUp = false;

  async function pending(): Promise<boolean> {
    if (!setUp && (await setupRepo.anyUser(db))) setUp = true;
    return !setUp;
  }

  async function issue(createdBy: 'server' | 'cli'): Promise<string> {
    const token = newToken();
    await database.transaction((trx) =>
      setupRepo.insert(trx, { token_digest: digestToken(token), created_at: iso(clock()), created_by: createdBy }),
    );
    return token;
  }

  async function checkLink(token: string): Promise<void> {
    if (!(await pending())) throw new AppError('conflict', ALREADY_SET_UP);
    if (!(await setupRepo.exists(db, digestToken(token)))) throw new AppError('not_found', LINK_REFUSED);
  }

  return {
    /** True while no console user exists: the console then shows only how to set it up. */
    pending,

    /**
     * At every server start: the links printed before are void; a fresh one (the token) while no
     * user exists, else null.
     */
    async linkAtStart(): Promise<string | null> {
      const fresh = await database.transaction(async (trx) => {
        await setupRepo.clear(trx);
        return !(await setupRepo.anyUser(trx));
      });
      return fresh ? issue('server') : null;
    },

    /** `cra-admin setup-link`: one more link for a running server; refused once a user exists. */
    async newLink(): Promise<string> {
      if (!(await pending()))
        throw new AppError(
          'conflict',
          'this instance is already set up (a console user exists): sign in to the console, or invite people with cra-admin user invite',
        );
      return issue('cli');
    },

    /** Throws unless the link may still be used (not_found: unknown, used or from before a start; conflict: already set up). */
    checkLink,

    /**
     * Uses the link: the organisation, its owner (password set, authenticator still to enrol) and
     * a session in the enrol stage, all or nothing. Every link is consumed in the same
     * transaction, so two claims at once (two tabs, two links) create one owner.
     */
    async claim(token: string, input: SetupInput): Promise<{ token: string; org: string }> {
      await checkLink(token);
      const name = input.orgName.trim();
      if (!isStorableText(name) || name === '' || name.length > 200)
        throw fieldError('org_name', 'Give the organisation a name of 1 to 200 characters.');
      const slug = input.orgSlug.trim() || slugFrom(name);
      if (slugProblem(slug))
        throw fieldError('org_slug', 'Use 1 to 63 lower-case letters, digits or hyphens, not starting or ending with one.');
      let email: string;
      try {
        email = normaliseEmail(input.email);
      } catch (error) {
        throw error instanceof AppError ? fieldError('email', error.message) : error;
      }
      if (!options.box) throw new AppError('service_unavailable', 'the console has no CONSOLE_SECRET to protect authenticator secrets');
      const user = await newAccount(email, input.password, options.box, clock());
      let org: string;
      try {
        org = await database.transaction(async (trx) => {
          if (!(await setupRepo.takeAll(trx)).includes(digestToken(token))) throw new AppError('not_found', LINK_REFUSED);
          if (await setupRepo.anyUser(trx)) throw new AppError('conflict', ALREADY_SET_UP);
          // A slug taken (found, or inserted meanwhile) rolls the claim back: the link stays usable.
          const created = await orgs.createOrgIn(trx, { slug, name }, `user:${email}`).catch((error: unknown) => {
            if ((error instanceof AppError && error.code === 'conflict') || isUniqueViolation(error))
              throw fieldError('org_slug', `An organisation "${slug}" already exists; choose another short name.`);
            throw error;
          });
          await usersRepo.insert(trx, user);
          await joinOrganisation(trx, user, created.id, 'owner', user.created_at);
          return created.slug;
        });
      } catch (error) {
        // The only other unique key written here is the user's e-mail: someone joined meanwhile.
        throw isUniqueViolation(error) ? new AppError('conflict', ALREADY_SET_UP) : error;
      }
      setUp = true;
      const session = await database.transaction((trx) => startSession(trx, user.id, 'enrol', clock(), limits.absoluteMs));
      return { token: session.token, org };
    },
  };
}

export type SetupService = ReturnType<typeof createSetupService>;
