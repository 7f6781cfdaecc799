import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// TOTP secrets at rest: AES-256-GCM under a key derived from CONSOLE_SECRET. Stored as
// "v1.<iv>.<tag>.<ciphertext>" (base64url), so a leaked database alone reveals no second factor.

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /** Bytes (attachments): iv (12) ‖ tag (16) ‖ ciphertext, under the same key. */
  sealBytes(plain: Buffer): Buffer;
  openBytes(sealed: Buffer): Buffer;
}

/** `purpose` separates keys: the same CONSOLE_SECRET seals TOTP and webhook secrets under different keys. */
export function createSecretBox(secret: string, purpose = 'cra-console-totp'): SecretBox {
  const key = createHash('sha256').update(`${purpose}:${secret}`).digest();
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
    sealBytes(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), data]);
    },
    openBytes(sealed) {
      if (sealed.length < 28) throw new Error('not sealed bytes');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      decipher.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
    },
  };
}

/**
 * A key for `purpose` derived from the console's secret, the same on every instance that shares
 * it; without a secret, a random one of this process (the console then signs no one in anyway).
 */
export function derivedKey(secret: string | null, purpose: string): Buffer {
  return secret ? createHash('sha256').update(`${purpose}:${secret}`).digest() : randomBytes(32);
}

/**
 * CONSOLE_SECRET when set. Else, on SQLite only, a secret generated once into a 0600 file
 * beside the database, so `npm start` needs no extra step. Null otherwise (PostgreSQL without
 * CONSOLE_SECRET: the instances must share one key, which only the operator can provide).
 */
export function resolveConsoleSecret(configured: string | null, databaseUrl: string): string | null {
  if (configured) return configured;
  if (!databaseUrl.startsWith('sqlite:')) return null;
  const path = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  if (path === ':memory:') return randomBytes(32).toString('base64url');
  const file = join(dirname(resolve(path)), 'console-secret');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  try {
    chmodSync(file, 0o600);
  } catch (error) {
    // A location mounted read-only: the server still starts (not ready until it is writable).
    if ((error as NodeJS.ErrnoException).code !== 'EROFS') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}
