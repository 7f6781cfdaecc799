import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import type { Role, SessionStage, UserRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { checkNewPassword, digestToken as digest, joinOrganisation, newAccount, newToken, startSession } from './accounts.js';
import { DUMMY_HASH, hashPassword, passwordProblem, verifyPassword } from './password.js';
import { digestRecoveryCode, generateRecoveryCodes, normaliseRecoveryCode } from './recovery-codes.js';
import type { SecretBox } from '../shared/secret-box.js';
import { acceptTotp, newTotpSecret } from './totp.js';
import { createSignInLimits, limitsFor } from './sign-in-limits.js';
import { usersRepo, type MembershipView } from './users.repo.js';

export type { MembershipView };
import { isStorableText } from '../shared/storable-text.js';

export const ROLES: readonly Role[] = ['owner', 'admin', 'analyst', 'viewer'];
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const INVITATION_MS = 72 * 3_600_000;

export interface SessionLimits {
  absoluteMs: number;
  idleMs: number;
}
export const DEFAULT_SESSION_LIMITS: SessionLimits = { absoluteMs: 12 * 3_600_000, idleMs: 30 * 60_000 };

export { THROTTLE } from './sign-in-limits.js';
/** How long a browser the user signed in from keeps a sign-in limit of its own. */
export const DEVICE_MS = 180 * 24 * 3_600_000;

export interface Invitation {
  email: string;
  role: Role;
  org: string;
  token: string;
  expires_at: string;
}

export interface SignedIn {
  user: UserRow;
  memberships: MembershipView[];
  session: { idDigest: string; stage: SessionStage; expiresAt: string };
}

export function parseRole(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) throw new AppError('validation_failed', `role must be one of: ${ROLES.join(', ')}`);
  return value as Role;
}

export function normaliseEmail(value: string): string {
  const email = value.trim().toLowerCase();
  // A NUL passes the pattern but no database can look it up (PostgreSQL refuses the query).
  if (!EMAIL.test(email) || email.length > 254 || !isStorableText(email))
    throw new AppError('validation_failed', `"${value}" is not an e-mail address`);
  return email;
}

/** The console's people. `box` seals TOTP secrets; operators' commands that never touch one pass null. */
export function createUserService(
  database: Database,
  orgs: OrgService,
  options: { clock?: Clock; box?: SecretBox | null; sessions?: SessionLimits } = {},
) {
  const clock = options.clock ?? systemClock;
  const limits = options.sessions ?? DEFAULT_SESSION_LIMITS;
  const db = database.db;
  const signInLimits = createSignInLimits(database, clock);

  function box(): SecretBox {
    if (!options.box) throw new AppError('service_unavailable', 'the console has no CONSOLE_SECRET to protect authenticator secrets');
    return options.box;
  }

  async function requireUser(email: string): Promise<UserRow> {
    const user = await usersRepo.findByEmail(db, normaliseEmail(email));
    if (!user) throw new AppError('not_found', `no console user with e-mail ${email}`);
    return user;
  }

  async function openInvitation(token: string) {
    const invitation = await usersRepo.findInvitation(db, digest(token));
    if (!invitation || invitation.accepted_at !== null || invitation.expires_at <= iso(clock())) {
      throw new AppError('not_found', 'This invitation link is unknown, already used or expired. Ask for a new one.');
    }
    return invitation;
  }

  const newSession = (userId: string, stage: SessionStage) =>
    database.transaction((trx) => startSession(trx, userId, stage, clock(), limits.absoluteMs));

  /** The digest of `token` when it names a device of `user`'s (signed in from it within DEVICE_MS), else null. */
  async function deviceOf(user: UserRow | undefined, token: string | undefined): Promise<string | null> {
    if (!user || !token || token.length > 100) return null;
    const device = await usersRepo.findDevice(db, digest(token));
    if (device?.user_id !== user.id || Date.parse(device.created_at) + DEVICE_MS <= clock().getTime()) return null;
    return device.digest;
  }

  /** A new device of the user's: the cookie's value (only its digest is stored). */
  async function rememberDevice(userId: string): Promise<string> {
    const token = newToken();
    const now = iso(clock());
    await database.transaction((trx) =>
      usersRepo.insertDevice(trx, { digest: digest(token), user_id: userId, created_at: now, last_used_at: now }),
    );
    return token;
  }

  async function secondFactor(user: UserRow, code: string): Promise<boolean> {
    if (!user.totp_secret) return true;
    const now = clock();
    const step = acceptTotp(box().open(user.totp_secret), code, now, user.totp_last_step);
    if (step !== null) return database.transaction((trx) => usersRepo.advanceTotpStep(trx, user.id, step));
    const recovery = normaliseRecoveryCode(code);
    return (
      recovery !== null && database.transaction((trx) => usersRepo.useRecoveryCode(trx, user.id, digestRecoveryCode(recovery), iso(now)))
    );
  }

  return {
    async invite(input: { org: string; email: string; role: string; actor: string }): Promise<Invitation> {
      const org = await orgs.requireOrg(input.org);
      const email = normaliseEmail(input.email);
      const role = parseRole(input.role);
      const token = newToken();
      const now = clock();
      const row = {
        id: randomUUID(),
        org_id: org.id,
        email,
        role,
        token_digest: digest(token),
        invited_by: input.actor,
        created_at: iso(now),
        expires_at: iso(new Date(now.getTime() + INVITATION_MS)),
        accepted_at: null,
      };
      await database.transaction(async (trx) => {
        await usersRepo.insertInvitation(trx, row);
        await appendRegistryEntry(
          trx,
          org.id,
          { actor: input.actor, action: 'user.invited', subject: email, details: { role, expires_at: row.expires_at } },
          row.created_at,
        );
      });
      return { email, role, org: org.slug, token, expires_at: row.expires_at };
    },

    /**
     * The invitation behind a link. Not whether its address has an account: whoever holds the
     * link (the inviter too) learns nothing of that from the invitation.
     */
    async invitation(token: string) {
      const invitation = await openInvitation(token);
      return { email: invitation.email, role: invitation.role, org: invitation.org_slug, orgName: invitation.org_name };
    },

    /**
     * A new user accepts: password checked and hashed, a TOTP secret generated (sealed), the
     * membership created, and a session in the 'enrol' stage started.
     */
    async acceptAsNewUser(token: string, password: string): Promise<{ token: string; user: UserRow }> {
      const invitation = await openInvitation(token);
      checkNewPassword(password, [invitation.email]);
      if (await usersRepo.findByEmail(db, invitation.email))
        throw new AppError(
          'conflict',
          'This address has an account on this console already: sign in with it, then open this link again to accept.',
        );
      const user = await newAccount(invitation.email, password, box(), clock());
      const now = user.created_at;
      await database.transaction(async (trx) => {
        if (!(await usersRepo.acceptInvitation(trx, invitation.id, now)))
          throw new AppError('not_found', 'This invitation link was already used.');
        await usersRepo.insert(trx, user);
        await joinOrganisation(trx, user, invitation.org_id, invitation.role, now);
      });
      const session = await newSession(user.id, 'enrol');
      return { token: session.token, user };
    },

    /** A signed-in user accepts an invitation addressed to their own e-mail. */
    async acceptAsUser(token: string, user: UserRow): Promise<string> {
      const invitation = await openInvitation(token);
      if (invitation.email !== user.email)
        throw new AppError('forbidden', `This invitation is for ${invitation.email}; you are signed in as ${user.email}.`);
      const now = iso(clock());
      await database.transaction(async (trx) => {
        if (!(await usersRepo.acceptInvitation(trx, invitation.id, now)))
          throw new AppError('not_found', 'This invitation link was already used.');
        await joinOrganisation(trx, user, invitation.org_id, invitation.role, now);
      });
      return invitation.org_slug;
    },

    /** The TOTP secret while enrolment is pending; never once it is complete. */
    enrolmentSecret(user: UserRow): string {
      if (user.totp_enrolled_at !== null || !user.totp_secret) throw new AppError('conflict', 'The authenticator is already enrolled.');
      return box().open(user.totp_secret);
    },

    /**
     * Confirms the authenticator with a current code; returns the ten recovery codes, shown once,
     * and the token of a new full session: the enrolment stage's session ends, so whoever knew its
     * token (fixed before the person signed in, say) holds nothing afterwards.
     */
    async completeEnrolment(
      user: UserRow,
      sessionDigest: string,
      code: string,
    ): Promise<{ codes: string[]; token: string; idDigest: string } | null> {
      const secret = user.totp_secret;
      if (!secret) throw new AppError('conflict', 'There is no authenticator to confirm; reload the page.');
      if (user.totp_enrolled_at !== null) throw new AppError('conflict', 'The authenticator is already enrolled.');
      const step = acceptTotp(box().open(secret), code, clock(), user.totp_last_step);
      if (step === null) return null;
      const codes = generateRecoveryCodes();
      const now = clock();
      const token = newToken();
      await database.transaction(async (trx) => {
        await usersRepo.update(trx, user.id, { totp_enrolled_at: iso(now), totp_last_step: step, updated_at: iso(now) });
        await usersRepo.replaceRecoveryCodes(trx, user.id, codes.map(digestRecoveryCode));
        await usersRepo.deleteSession(trx, sessionDigest);
        await usersRepo.insertSession(trx, {
          id_digest: digest(token),
          user_id: user.id,
          stage: 'full',
          created_at: iso(now),
          last_seen_at: iso(now),
          expires_at: iso(new Date(now.getTime() + limits.absoluteMs)),
        });
      });
      return { codes, token, idDigest: digest(token) };
    },

    /** Gives a user without a secret (after a reset) a fresh one to enrol. */
    async ensureEnrolmentSecret(user: UserRow): Promise<UserRow> {
      if (user.totp_secret) return user;
      const sealed = box().seal(newTotpSecret());
      await database.transaction((trx) => usersRepo.update(trx, user.id, { totp_secret: sealed, totp_last_step: null }));
      return { ...user, totp_secret: sealed, totp_last_step: null };
    },

    /**
     * Password and second factor (a TOTP code or an unused recovery code), limited as
     * sign-in-limits.ts says: past a limit the answer says so and nothing is checked. `device`:
     * the device cookie the browser sent. A full sign-in from a browser that is not yet one of
     * the user's devices returns a new device cookie (`device`).
     */
    async signIn(input: {
      email: string;
      password: string;
      code: string;
      address: string;
      device?: string;
    }): Promise<{ token: string; stage: SessionStage; device: string | null } | { error: string }> {
      const email = input.email.trim().toLowerCase();
      // A NUL or lone surrogate can be no one's e-mail (and PostgreSQL refuses to look it up).
      const storable = isStorableText(email) && isStorableText(input.address);
      const user = storable ? await usersRepo.findByEmail(db, email) : undefined;
      const device = await deviceOf(user, input.device);
      const admitted = await signInLimits.admit(limitsFor(storable ? email : digest(email), storable ? input.address : '?', device));
      if ('refused' in admitted) return { error: admitted.refused };
      const passwordOk = await verifyPassword(user?.password_hash ?? DUMMY_HASH, input.password);
      const ok = user !== undefined && user.status === 'active' && passwordOk && (await secondFactor(user, input.code));
      if (!ok || !user) return { error: 'The e-mail, password or authentication code is not right.' };
      await signInLimits.succeeded(admitted.attempt);
      const stage: SessionStage = user.totp_enrolled_at !== null && user.totp_secret ? 'full' : 'enrol';
      const session = await newSession(user.id, stage);
      if (device) await database.transaction((trx) => usersRepo.touchDevice(trx, device, iso(clock())));
      return { token: session.token, stage, device: stage === 'full' && !device ? await rememberDevice(user.id) : null };
    },

    /** A new device of the user's (after enrolment, which is a sign-in too): the cookie's value. */
    rememberDevice: (user: UserRow) => rememberDevice(user.id),

    /** The session behind a cookie, if it has not ended, passed 12 h or sat idle too long. */
    async resolveSession(token: string): Promise<SignedIn | null> {
      const idDigest = digest(token);
      const session = await usersRepo.findSession(db, idDigest);
      if (!session) return null;
      const now = clock();
      const idleEnd = Date.parse(session.last_seen_at) + limits.idleMs;
      if (now.getTime() >= Date.parse(session.expires_at) || now.getTime() >= idleEnd) {
        await database.transaction((trx) => usersRepo.deleteSession(trx, idDigest));
        return null;
      }
      const user = await usersRepo.findById(db, session.user_id);
      if (user?.status !== 'active') return null;
      // Written at most every 30 s (or half the idle limit when shorter): a page view is rarely a write.
      if (now.getTime() - Date.parse(session.last_seen_at) > Math.min(30_000, limits.idleMs / 2))
        await database.transaction((trx) => usersRepo.touchSession(trx, idDigest, iso(now)));
      return {
        user,
        memberships: await usersRepo.memberships(db, user.id),
        session: { idDigest, stage: session.stage, expiresAt: session.expires_at },
      };
    },

    async endSession(token: string): Promise<void> {
      await database.transaction((trx) => usersRepo.deleteSession(trx, digest(token)));
    },

    /**
     * Checks the current password, then stores the new one and ends every other session of the
     * user. The check counts against the sign-in limits of the account from where it is made (the
     * device, or the address), so a stolen session cannot be used to guess the password.
     */
    async changePassword(
      user: UserRow,
      sessionDigest: string,
      current: string,
      next: string,
      from: { address: string; device?: string },
    ): Promise<void> {
      const device = await deviceOf(user, from.device);
      const admitted = await signInLimits.admit(limitsFor(user.email, from.address, device));
      if ('refused' in admitted)
        throw new AppError('validation_failed', admitted.refused, [{ path: 'current', message: admitted.refused }]);
      if (!(await verifyPassword(user.password_hash, current))) {
        throw new AppError('validation_failed', 'The current password is not right.', [
          { path: 'current', message: 'The current password is not right.' },
        ]);
      }
      await signInLimits.succeeded(admitted.attempt);
      if (next === current)
        throw new AppError('validation_failed', 'The new password is the current one; choose another.', [
          { path: 'password', message: 'The new password is the current one; choose another.' },
        ]);
      const problem = passwordProblem(next, [user.email]);
      if (problem) throw new AppError('validation_failed', problem, [{ path: 'password', message: problem }]);
      await database.transaction(async (trx) => {
        await usersRepo.update(trx, user.id, { password_hash: await hashPassword(next), updated_at: iso(clock()) });
        await usersRepo.deleteSessionsOf(trx, user.id, sessionDigest);
      });
    },

    // Operators (cra-admin user …) and owners (the Members page).

    async listUsers(orgSlug?: string) {
      const org = orgSlug ? await orgs.requireOrg(orgSlug) : undefined;
      const [users, memberships] = await Promise.all([usersRepo.list(db), usersRepo.allMemberships(db)]);
      return users
        .map((u) => ({
          email: u.email,
          status: u.status,
          totp_enrolled: u.totp_enrolled_at !== null,
          created_at: u.created_at,
          memberships: memberships.filter((m) => m.user_id === u.id).map((m) => ({ org: m.slug, role: m.role })),
        }))
        .filter((u) => !org || u.memberships.some((m) => m.org === org.slug));
    },

    async disableUser(email: string): Promise<void> {
      const user = await requireUser(email);
      await database.transaction(async (trx) => {
        await usersRepo.update(trx, user.id, { status: 'disabled', updated_at: iso(clock()) });
        await usersRepo.deleteSessionsOf(trx, user.id);
        await usersRepo.deleteDevicesOf(trx, user.id);
      });
    },

    /** Removes the authenticator and recovery codes and ends every session: the next sign-in enrols anew. */
    async resetTwoFactor(email: string): Promise<void> {
      const user = await requireUser(email);
      await database.transaction(async (trx) => {
        await usersRepo.update(trx, user.id, { totp_secret: null, totp_enrolled_at: null, totp_last_step: null, updated_at: iso(clock()) });
        await usersRepo.replaceRecoveryCodes(trx, user.id, []);
        await usersRepo.deleteSessionsOf(trx, user.id);
        await usersRepo.deleteDevicesOf(trx, user.id);
      });
    },

    members: (orgId: string) => usersRepo.members(db, orgId),

    async changeRole(orgId: string, email: string, role: string, actor: string): Promise<void> {
      const user = await requireUser(email);
      const next = parseRole(role);
      const member = (await usersRepo.members(db, orgId)).find((m) => m.user_id === user.id);
      if (!member) throw new AppError('not_found', `${email} is not a member`);
      if (member.role === 'owner' && next !== 'owner' && (await usersRepo.countOwners(db, orgId)) <= 1) {
        throw new AppError('conflict', 'An organisation keeps at least one owner.');
      }
      const now = iso(clock());
      await database.transaction(async (trx) => {
        await usersRepo.setRole(trx, user.id, orgId, next);
        await appendRegistryEntry(
          trx,
          orgId,
          { actor, action: 'member.role_changed', subject: user.email, details: { from: member.role, to: next } },
          now,
        );
      });
    },

    async removeMember(orgId: string, email: string, actor: string): Promise<void> {
      const user = await requireUser(email);
      const member = (await usersRepo.members(db, orgId)).find((m) => m.user_id === user.id);
      if (!member) throw new AppError('not_found', `${email} is not a member`);
      if (member.role === 'owner' && (await usersRepo.countOwners(db, orgId)) <= 1)
        throw new AppError('conflict', 'An organisation keeps at least one owner.');
      const now = iso(clock());
      await database.transaction(async (trx) => {
        await usersRepo.removeMembership(trx, user.id, orgId);
        await appendRegistryEntry(
          trx,
          orgId,
          { actor, action: 'member.removed', subject: user.email, details: { role: member.role } },
          now,
        );
      });
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
