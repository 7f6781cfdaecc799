import { createRequire } from 'node:module';
import { hash, verify } from '@node-rs/argon2';

// Passwords: argon2id (the @node-rs/argon2 default; OWASP's minimum is 19 MiB, 2 passes) and a
// check against Mozilla's list of common passwords (fxa-common-password-list, drawn from the
// "10 million passwords" top million), so a long but well-known password is refused too.

const require = createRequire(import.meta.url);
const commonPasswords = require('fxa-common-password-list') as { test(password: string): boolean };

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** Why `password` may not be used, or null when it may. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  if (commonPasswords.test(password) || commonPasswords.test(password.toLowerCase())) {
    return 'This password is on a list of commonly used passwords; choose another.';
  }
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Verifying against this keeps a sign-in for an unknown e-mail as slow as for a known one. */
export const DUMMY_HASH = await hash('not a real password, only for timing', ARGON2);
