import { createHash, randomInt } from 'node:crypto';

// Ten single-use recovery codes, shown once at enrolment. Each has 50 random bits (10 characters
// of a 32-letter alphabet without 0/O/1/I/L), so a plain SHA-256 digest is enough to store them.

const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const RECOVERY_CODE_COUNT = 10;

export function generateRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** Case, spaces and the dash do not matter when a code is typed back. */
export function normaliseRecoveryCode(input: string): string | null {
  const compact = input.toUpperCase().replace(/[\s-]/g, '');
  if (compact.length !== 10 || [...compact].some((c) => !ALPHABET.includes(c))) return null;
  return `${compact.slice(0, 5)}-${compact.slice(5)}`;
}

export function digestRecoveryCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}
