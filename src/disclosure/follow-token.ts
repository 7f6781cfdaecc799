import { createHash, randomBytes } from 'node:crypto';

// The reporter's follow-up link is a capability URL: 32 random bytes (256 bits) as base64url
// (43 characters); only the SHA-256 digest is stored, as for API keys and invitations.

export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function newFollowToken(): { token: string; digest: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, digest: digestOf(token) };
}

export function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
