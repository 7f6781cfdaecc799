import type { Executor } from '../db/index.js';
import type { ConsoleDeviceRow, ConsoleSessionRow, InvitationRow, Role, UserRow } from '../db/schema.js';

export interface MembershipView {
  org_id: string;
  slug: string;
  name: string;
  role: Role;
}

export interface MemberRow {
  user_id: string;
  email: string;
  status: string;
  role: Role;
  created_at: string;
}

export const usersRepo = {
  findByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  },
  findById(db: Executor, id: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  },
  async insert(db: Executor, user: UserRow): Promise<void> {
    await db.insertInto('users').values(user).execute();
  },
  async update(db: Executor, id: string, change: Partial<UserRow>): Promise<void> {
    await db.updateTable('users').set(change).where('id', '=', id).execute();
  },
  /** Sets the last accepted TOTP step only if it moves forward: two requests cannot both use one code. */
  async advanceTotpStep(db: Executor, id: string, step: number): Promise<boolean> {
    const result = await db
      .updateTable('users')
      .set({ totp_last_step: step })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },
  list(db: Executor): Promise<UserRow[]> {
    return db.selectFrom('users').selectAll().orderBy('email').execute();
  },
  allMemberships(db: Executor): Promise<Array<{ user_id: string; slug: string; role: Role }>> {
    return db
      .selectFrom('memberships as m')
      .innerJoin('organisations as o', 'o.id', 'm.org_id')
      .select(['m.user_id', 'o.slug', 'm.role'])
      .orderBy('o.slug')
      .execute();
  },

  memberships(db: Executor, userId: string): Promise<MembershipView[]> {
    return db
      .selectFrom('memberships as m')
      .innerJoin('organisations as o', 'o.id', 'm.org_id')
      .select(['m.org_id', 'o.slug', 'o.name', 'm.role'])
      .where('m.user_id', '=', userId)
      .orderBy('o.slug')
      .execute();
  },
  members(db: Executor, orgId: string): Promise<MemberRow[]> {
    return db
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.user_id', 'u.email', 'u.status', 'm.role', 'm.created_at'])
      .where('m.org_id', '=', orgId)
      .orderBy('u.email')
      .execute();
  },
  async upsertMembership(db: Executor, row: { user_id: string; org_id: string; role: Role; created_at: string }): Promise<void> {
    await db
      .insertInto('memberships')
      .values(row)
      .onConflict((oc) => oc.columns(['user_id', 'org_id']).doUpdateSet({ role: row.role }))
      .execute();
  },
  async setRole(db: Executor, userId: string, orgId: string, role: Role): Promise<void> {
    await db.updateTable('memberships').set({ role }).where('user_id', '=', userId).where('org_id', '=', orgId).execute();
  },
  async removeMembership(db: Executor, userId: string, orgId: string): Promise<void> {
    await db.deleteFrom('memberships').where('user_id', '=', userId).where('org_id', '=', orgId).execute();
  },
  async countOwners(db: Executor, orgId: string): Promise<number> {
    const row = await db
      .selectFrom('memberships')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  async insertInvitation(db: Executor, row: InvitationRow): Promise<void> {
    await db.insertInto('invitations').values(row).execute();
  },
  findInvitation(db: Executor, tokenDigest: string): Promise<(InvitationRow & { org_slug: string; org_name: string }) | undefined> {
    return db
      .selectFrom('invitations as i')
      .innerJoin('organisations as o', 'o.id', 'i.org_id')
      .selectAll('i')
      .select(['o.slug as org_slug', 'o.name as org_name'])
      .where('i.token_digest', '=', tokenDigest)
      .executeTakeFirst();
  },
  /** Marks the invitation used; false when another request used it first. */
  async acceptInvitation(db: Executor, id: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable('invitations')
      .set({ accepted_at: at })
      .where('id', '=', id)
      .where('accepted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async insertSession(db: Executor, row: ConsoleSessionRow): Promise<void> {
    await db.insertInto('console_sessions').values(row).execute();
  },
  findSession(db: Executor, idDigest: string): Promise<ConsoleSessionRow | undefined> {
    return db.selectFrom('console_sessions').selectAll().where('id_digest', '=', idDigest).executeTakeFirst();
  },
  async touchSession(db: Executor, idDigest: string, at: string): Promise<void> {
    await db.updateTable('console_sessions').set({ last_seen_at: at }).where('id_digest', '=', idDigest).execute();
  },
  async setSessionStage(db: Executor, idDigest: string, stage: ConsoleSessionRow['stage']): Promise<void> {
    await db.updateTable('console_sessions').set({ stage }).where('id_digest', '=', idDigest).execute();
  },
  async deleteSession(db: Executor, idDigest: string): Promise<void> {
    await db.deleteFrom('console_sessions').where('id_digest', '=', idDigest).execute();
  },
  async deleteSessionsOf(db: Executor, userId: string, except?: string): Promise<void> {
    let query = db.deleteFrom('console_sessions').where('user_id', '=', userId);
    if (except) query = query.where('id_digest', '!=', except);
    await query.execute();
  },

  async replaceRecoveryCodes(db: Executor, userId: string, digests: string[]): Promise<void> {
    await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    if (digests.length > 0)
      await db
        .insertInto('recovery_codes')
        .values(digests.map((digest) => ({ user_id: userId, digest, used_at: null })))
        .execute();
  },
  /** Uses the code once: false when unknown or already used. */
  async useRecoveryCode(db: Executor, userId: string, digest: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable('recovery_codes')
      .set({ used_at: at })
      .where('user_id', '=', userId)
      .where('digest', '=', digest)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async countFailures(db: Executor, bucket: string, since: string): Promise<{ count: number; oldest: string | null }> {
    const row = await db
      .selectFrom('sign_in_failures')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('at').as('oldest')])
      .where('bucket', '=', bucket)
      .where('at', '>', since)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), oldest: (row.oldest as string | null) ?? null };
  },
  /** Records a failure in each bucket for `attempt`, and forgets failures older than `pruneBefore`. */
  async recordFailures(db: Executor, buckets: readonly string[], at: string, attempt: string, pruneBefore: string): Promise<void> {
    await db.deleteFrom('sign_in_failures').where('at', '<', pruneBefore).execute();
    await db
      .insertInto('sign_in_failures')
      .values(buckets.map((bucket) => ({ bucket, at, attempt })))
      .execute();
  },
  /** Takes back what an attempt recorded: it succeeded. */
  async forgetAttempt(db: Executor, attempt: string): Promise<void> {
    await db.deleteFrom('sign_in_failures').where('attempt', '=', attempt).execute();
  },

  findDevice(db: Executor, digest: string): Promise<ConsoleDeviceRow | undefined> {
    return db.selectFrom('console_devices').selectAll().where('digest', '=', digest).executeTakeFirst();
  },
  async insertDevice(db: Executor, row: ConsoleDeviceRow): Promise<void> {
    await db.insertInto('console_devices').values(row).execute();
  },
  async touchDevice(db: Executor, digest: string, at: string): Promise<void> {
    await db.updateTable('console_devices').set({ last_used_at: at }).where('digest', '=', digest).execute();
  },
  async deleteDevicesOf(db: Executor, userId: string): Promise<void> {
    await db.deleteFrom('console_devices').where('user_id', '=', userId).execute();
  },
};
