import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/users/password.js';
import { digestRecoveryCode, generateRecoveryCodes, normaliseRecoveryCode } from '../../src/users/recovery-codes.js';
import { createSecretBox, resolveConsoleSecret } from '../../src/shared/secret-box.js';
import { acceptTotp, newTotpSecret, totpCode, totpUri } from '../../src/users/totp.js';

describe('console passwords', () => {
  it('are stored as argon2id hashes that verify only the same password', async () => {
    const hash = await hashPassword('correct horse battery staple');
    assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(await verifyPassword(hash, 'correct horse battery staple'), true);
    assert.equal(await verifyPassword(hash, 'correct horse battery stapler'), false);
    assert.equal(await verifyPassword('not a hash', 'anything'), false);
  });

  it('need 12 characters and may not be a common password', () => {
    assert.match(passwordProblem('short-pass1')!, /at least 12/);
    assert.match(passwordProblem('123456789012')!, /commonly used/);
    assert.match(passwordProblem('qwertyuiop123')!, /commonly used/);
    assert.match(passwordProblem('PASSWORD1234')!, /commonly used/);
    assert.equal(passwordProblem('plum-orbit-47-lantern'), null);
    assert.match(passwordProblem('x'.repeat(201))!, /at most 200/);
  });

  it('may not be easy to guess: spaces, one character or pattern repeated, a sequence, the own e-mail', () => {
    const ana = ['ana@example.com'];
    for (const [password, why] of [
      [' '.repeat(12), /repeats one character/],
      ['%%%%%%%%%%%%%', /repeats one character/],
      ['x'.repeat(60), /repeats one character/],
      ['abcabcabcabc', /repeats a pattern/],
      ['abcdefghijklmnop', /sequence/],
      ['ana@example.com', /your e-mail address/],
      ['Ana@Example.com!', /your e-mail address/],
      ['ana@example.com2026', /your e-mail address/],
    ] as const) {
      assert.match(passwordProblem(password, ana) ?? 'accepted', why, JSON.stringify(password));
    }
    assert.match(passwordProblem('ana@example.com', ana)!, /^This password is too easy to guess/);
    assert.equal(passwordProblem('plum-orbit-47-lantern', ana), null);
    assert.equal(passwordProblem('quiet-harbour-92-thistle', ana), null);
  });
});

describe('TOTP', () => {
  const secret = newTotpSecret();
  const t0 = new Date('2026-11-22T10:00:15.000Z');

  it('accepts the current code and one step of drift either way, not two', () => {
    assert.notEqual(acceptTotp(secret, totpCode(secret, t0), t0, null), null);
    assert.notEqual(acceptTotp(secret, totpCode(secret, new Date(t0.getTime() - 30_000)), t0, null), null);
    assert.notEqual(acceptTotp(secret, totpCode(secret, new Date(t0.getTime() + 30_000)), t0, null), null);
    assert.equal(acceptTotp(secret, totpCode(secret, new Date(t0.getTime() - 60_000)), t0, null), null);
    assert.equal(acceptTotp(secret, totpCode(secret, new Date(t0.getTime() + 60_000)), t0, null), null);
  });

  it('accepts a step once: the same code again, or an older one, is refused', () => {
    const step = acceptTotp(secret, totpCode(secret, t0), t0, null)!;
    assert.equal(step, Math.floor(t0.getTime() / 30_000));
    assert.equal(acceptTotp(secret, totpCode(secret, t0), t0, step), null);
    assert.equal(acceptTotp(secret, totpCode(secret, new Date(t0.getTime() - 30_000)), t0, step), null);
    const next = new Date(t0.getTime() + 30_000);
    assert.equal(acceptTotp(secret, totpCode(secret, next), next, step), step + 1);
  });

  it('refuses malformed codes and another secret’s code; the URI names issuer and account', () => {
    assert.equal(acceptTotp(secret, '12345', t0, null), null);
    assert.equal(acceptTotp(secret, 'abcdef', t0, null), null);
    assert.match(
      totpUri(secret, 'ana@example.com'),
      /^otpauth:\/\/totp\/CRA%20console:ana%40example\.com\?issuer=CRA%20console&secret=[A-Z2-7]+&algorithm=SHA1&digits=6&period=30$/,
    );
  });
});

describe('recovery codes', () => {
  it('are ten distinct codes of 50 random bits, typed back in any case with or without the dash', () => {
    const codes = generateRecoveryCodes();
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const code of codes) {
      assert.match(code, /^[2-9A-HJKMNP-Z]{5}-[2-9A-HJKMNP-Z]{5}$/);
      assert.equal(normaliseRecoveryCode(code.toLowerCase().replace('-', ' ')), code);
      assert.equal(digestRecoveryCode(code).length, 64);
    }
    assert.equal(normaliseRecoveryCode('ABCDE-FGHI0'), null);
    assert.equal(normaliseRecoveryCode('ABCD'), null);
  });
});

describe('TOTP secrets at rest', () => {
  it('are sealed with AES-256-GCM: unreadable without the key, tamper-evident', () => {
    const box = createSecretBox('key one');
    const sealed = box.seal('JBSWY3DPEHPK3PXP');
    assert.doesNotMatch(sealed, /JBSWY3DPEHPK3PXP/);
    assert.notEqual(box.seal('JBSWY3DPEHPK3PXP'), sealed, 'a fresh IV each time');
    assert.equal(box.open(sealed), 'JBSWY3DPEHPK3PXP');
    assert.throws(() => createSecretBox('key two').open(sealed));
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    assert.throws(() => box.open([...parts.slice(0, 3), flipped.toString('base64url')].join('.')));
  });

  it('use CONSOLE_SECRET, else a 0600 file generated once beside the SQLite database; none on PostgreSQL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-secret-'));
    try {
      assert.equal(resolveConsoleSecret('from-env', `sqlite:${join(dir, 'cra.db')}`), 'from-env');
      const first = resolveConsoleSecret(null, `sqlite:${join(dir, 'cra.db')}`);
      const file = join(dir, 'console-secret');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(readFileSync(file, 'utf8').trim(), first);
      assert.equal(resolveConsoleSecret(null, `sqlite:${join(dir, 'cra.db')}`), first, 'generated once');
      assert.equal(resolveConsoleSecret(null, 'postgres://postgres@127.0.0.1/x'), null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
