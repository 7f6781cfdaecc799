import { createRequire } from 'node:module';
import { hash, verify } from '@node-rs/argon2';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

// Passwords: argon2id (the @node-rs/argon2 default; OWASP's minimum is 19 MiB, 2 passes) and a
// check against Mozilla's list of common passwords (fxa-common-password-list, drawn from the
// "10 million passwords" top million), so a long but well-known password is refused too; and
// a strength estimate (zxcvbn-ts, with the person's e-mail as their own words): twelve spaces,
// one character or a pattern repeated, a sequence or the e-mail itself are long but guessed at
// once.

const require = createRequire(import.meta.url);
const commonPasswords = require('fxa-common-password-list') as { test(password: string): boolean };

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 200;
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

const estimator = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
/** zxcvbn's score 3: about 10^8 guesses or more ("safely unguessable" against online guessing). */
const MIN_SCORE = 3;
/** zxcvbn's warnings, as the reason the form shows. */
const WHY: Record<string, string> = {
  userInputs: 'it contains your e-mail address',
  simpleRepeat: 'it repeats one character',
  extendedRepeat: 'it repeats a pattern',
  sequences: 'it is a sequence such as abc or 6543',
  straightRow: 'it is a row of keys',
  keyPattern: 'it is a pattern of keys',
  recentYears: 'it is mostly a recent year',
  dates: 'it is mostly a date',
};

/** The words a person's password must not lean on: the e-mail, its name part and its domain's words. */
function ownWords(email: string): string[] {
  const lower = email.toLowerCase();
  const [name = '', domain = ''] = lower.split('@');
  return [lower, name, ...name.split(/[._+-]/), ...domain.split('.')].filter((w) => w.length >= 3);
}

/** Why `password` may not be used, or null when it may. `emails`: the person's own addresses. */
export function passwordProblem(password: string, emails: readonly string[] = []): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  if (commonPasswords.test(password) || commonPasswords.test(password.toLowerCase())) {
    return 'This password is on a list of commonly used passwords; choose another.';
  }
  const words = emails.flatMap(ownWords);
  if (words.some((w) => w.includes('@') && password.toLowerCase().includes(w))) return tooEasy('it contains your e-mail address');
  const estimate = estimator.check(password, words);
  if (estimate.score < MIN_SCORE) return tooEasy(WHY[estimate.feedback.warning ?? ''] ?? null);
  return null;
}

function tooEasy(why: string | null): string {
  return `This password is too easy to guess${why ? `: ${why}` : ''}. Choose a longer one, of words that do not belong together.`;
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
