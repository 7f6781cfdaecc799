import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import { lockKeys } from '../db/lock-keys.js';
import { iso, type Clock } from '../shared/time.js';
import { usersRepo } from './users.repo.js';

/**
 * Failed sign-ins allowed in any rolling window. From a browser the user has signed in from
 * before (a device), that device's own limit alone: failures from anywhere else never lock the
 * owner out. From anywhere else: the account from one address, the address over all accounts,
 * and the account from all addresses together (a guess spread over many addresses).
 */
export const THROTTLE = { windowMs: 15 * 60_000, perAccountAndAddress: 5, perAddress: 20, perAccount: 50, perDevice: 5 };

export interface Limit {
  bucket: string;
  limit: number;
  /** How the refusal names it: "Too many failed sign-ins <who>." */
  who: string;
}

/** The limits an attempt on `email` from `address` counts against; `device`: the digest of a device of the user's. */
export function limitsFor(email: string, address: string, device: string | null): Limit[] {
  if (device) return [{ bucket: `device:${device}`, limit: THROTTLE.perDevice, who: 'for this account' }];
  return [
    { bucket: `pair:${email} ${address}`, limit: THROTTLE.perAccountAndAddress, who: 'for this account' },
    { bucket: `address:${address}`, limit: THROTTLE.perAddress, who: 'from your network address' },
    { bucket: `account:${email}`, limit: THROTTLE.perAccount, who: 'for this account' },
  ];
}

/**
 * The count, the check and the record of a failure are one step: an attempt is admitted only if
 * every limit has room, and is then recorded as a failure at once (in the same transaction,
 * under a lock of its buckets on every instance), before its password is checked; one that
 * succeeds takes its record back. So parallel attempts can never pass a limit together.
 */
export function createSignInLimits(database: Database, clock: Clock) {
  return {
    async admit(limits: readonly Limit[]): Promise<{ attempt: string } | { refused: string }> {
      const attempt = randomUUID();
      return database.transaction(async (trx) => {
        await lockKeys(
          trx,
          database.dialect,
          limits.map((l) => `sign-in:${l.bucket}`),
        );
        const now = clock().getTime();
        const since = iso(new Date(now - THROTTLE.windowMs));
        for (const { bucket, limit, who } of limits) {
          const { count, oldest } = await usersRepo.countFailures(trx, bucket, since);
          if (count >= limit && oldest) {
            const minutes = Math.max(1, Math.ceil((Date.parse(oldest) + THROTTLE.windowMs - now) / 60_000));
            return { refused: `Too many failed sign-ins ${who}. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` };
          }
        }
        await usersRepo.recordFailures(
          trx,
          limits.map((l) => l.bucket),
          iso(new Date(now)),
          attempt,
          since,
        );
        return { attempt };
      });
    },

    /** The attempt succeeded: it was no failure. */
    succeeded(attempt: string): Promise<void> {
      return database.transaction((trx) => usersRepo.forgetAttempt(trx, attempt));
    },
  };
}
