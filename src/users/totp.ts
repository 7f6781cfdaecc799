import { Secret, TOTP } from 'otpauth';

// RFC 6238: SHA-1, 6 digits, 30-second steps, as every authenticator app expects. One step of
// drift either way is accepted, and a step once accepted is never accepted again (replay).

const PERIOD = 30;
const ISSUER = 'CRA console';

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, email = ''): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, email: string): string {
  return totp(secret, email).toString();
}

/**
 * The step of `code` if it is valid at `now` (±1 step) and later than `lastStep`; else null.
 * Storing the returned step as the new `lastStep` makes each code single-use.
 */
export function acceptTotp(secret: string, code: string, now: Date, lastStep: number | null): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totp(secret).validate({ token, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now.getTime() / 1000 / PERIOD) + delta;
  if (lastStep !== null && step <= lastStep) return null;
  return step;
}

/** The code an authenticator shows at `at`; for tests and the benchmark. */
export function totpCode(secret: string, at: Date): string {
  return totp(secret).generate({ timestamp: at.getTime() });
}
