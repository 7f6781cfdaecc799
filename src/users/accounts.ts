import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Executor, Trx } from '../db/index.js';
import type { Role, SessionStage, UserRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import type { SecretBox } from '../shared/secret-box.js';
import { iso } from '../shared/time.js';
import { hashPassword, passwordProblem } from './password.js';
import { newTotpSecret } from './totp.js';
import { usersRepo } from './users.repo.js';

// What an invitation and the first-run set-up both do to bring a person in: a new account with
// a chosen password and an authenticator still to enrol, a membership with its registry entry,
// and a session. One-time tokens (invitations, set-up links, sessions) are 256 random bits of
// which only the SHA-256 digest is stored.

/** A one-time token: 32 random bytes, base64url (43 characters). */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** What the database keeps of a token. */
export const digestToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Refuses a password too short, too long or too common, naming the field. */
export function checkNewPassword(password: string, emails: readonly string[] = []): void {
  const problem = passwordProblem(password, emails);
  if (problem) throw new AppError('validation_failed', problem, [{ path: 'password', message: problem }]);
}

/**
 * A new person, not yet stored: the password checked and hashed, a TOTP secret generated and
 * sealed (enrolment confirms it). The hashing is slow, so this runs before any transaction.
 */
export async function newAccount(email: string, password: string, box: SecretBox, now: Date): Promise<UserRow> {
  checkNewPassword(password, [email]);
  return {
    id: randomUUID(),
    email,
    status: 'active',
    password_hash: await hashPassword(password),
    totp_secret: box.seal(newTotpSecret()),
    totp_enrolled_at: null,
    totp_last_step: null,
    created_at: iso(now),
    updated_at: iso(now),
  };
}

/** `user` becomes a member of the organisation with `role`, in the caller's transaction: `user.joined` in its registry. */
export async function joinOrganisation(
  trx: Trx,
  user: Pick<UserRow, 'id' | 'email'>,
  orgId: string,
  role: Role,
  now: string,
): Promise<void> {
  await usersRepo.upsertMembership(trx, { user_id: user.id, org_id: orgId, role, created_at: now });
  await appendRegistryEntry(
    trx,
    orgId,
    { actor: `user:${user.email}`, action: 'user.joined', subject: user.email, details: { role } },
    now,
  );
}

/** A console session of `userId`: the cookie's token, and the digest the database keeps. */
export async function startSession(
  db: Executor,
  userId: string,
  stage: SessionStage,
  now: Date,
  absoluteMs: number,
): Promise<{ token: string; idDigest: string }> {
  const token = newToken();
  const idDigest = digestToken(token);
  await usersRepo.insertSession(db, {
    id_digest: idDigest,
    user_id: userId,
    stage,
    created_at: iso(now),
    last_seen_at: iso(now),
    expires_at: iso(new Date(now.getTime() + absoluteMs)),
  });
  return { token, idDigest };
}
