import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSecretBox } from '../../src/shared/secret-box.js';
import { totpCode } from '../../src/users/totp.js';
import { createUserService, THROTTLE } from '../../src/users/users.service.js';
import { listRegistry } from '../../src/registry/registry.service.js';
import { createOrgService } from '../../src/orgs/orgs.service.js';
import { TestClock, suiteTeardown } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';

const PASSWORD = 'plum-orbit-47-lantern';

describe('console users: invitation, enrolment, sign-in, sessions', () => {
  const teardown = suiteTeardown();

  async function setup() {
    const testDb = await createTestDatabase();
    teardown.after(() => testDb.drop());
    const clock = new TestClock();
    const orgs = createOrgService(testDb.database, clock.now);
    const box = createSecretBox('test secret');
    const users = createUserService(testDb.database, orgs, {
      clock: clock.now,
      box,
      sessions: { absoluteMs: 12 * 3_600_000, idleMs: 30 * 60_000 },
    });
    const org = await orgs.createOrg({ slug: 'acme' });
    /** Invites, accepts and enrols ana@example.com; returns her TOTP secret and recovery codes. */
    async function enrolled(role = 'owner', email = 'ana@example.com') {
      const invitation = await users.invite({ org: 'acme', email, role, actor: 'cli' });
      const accepted = await users.acceptAsNewUser(invitation.token, PASSWORD);
      const signedIn = (await users.resolveSession(accepted.token))!;
      assert.equal(signedIn.session.stage, 'enrol');
      const secret = users.enrolmentSecret(signedIn.user);
      const done = (await users.completeEnrolment(signedIn.user, signedIn.session.idDigest, totpCode(secret, clock.now())))!;
      assert.equal(await users.resolveSession(accepted.token), null, 'the enrolment stage ends with its session');
      clock.advance(30_000);
      return { secret, codes: done.codes, sessionToken: done.token };
    }
    return { testDb, clock, users, org, enrolled, box };
  }

  it('an invitation is single-use, expires after 72 h, and stores the TOTP secret sealed', async () => {
    const { users, clock, testDb, box, org } = await setup();
    const first = await users.invite({ org: 'acme', email: ' Ana@Example.com ', role: 'analyst', actor: 'cli' });
    assert.equal(first.email, 'ana@example.com');
    assert.equal(first.expires_at, '2026-11-25T10:00:00.000Z');
    await assert.rejects(users.acceptAsNewUser(first.token, 'password1234'), /commonly used/);
    const accepted = await users.acceptAsNewUser(first.token, PASSWORD);
    await assert.rejects(users.acceptAsNewUser(first.token, PASSWORD), /unknown, already used or expired/);
    const user = (await users.resolveSession(accepted.token))!.user;
    const secret = users.enrolmentSecret(user);
    assert.ok(!user.totp_secret!.includes(secret));
    assert.equal(box.open(user.totp_secret!), secret);

    const late = await users.invite({ org: 'acme', email: 'bo@example.com', role: 'viewer', actor: 'cli' });
    clock.advance(72 * 3_600_000);
    await assert.rejects(users.invitation(late.token), /expired/);
    const actions = [];
    for await (const e of listRegistry(testDb.database, org.id)) actions.push(`${e.actor} ${e.action} ${e.subject} ${e.details}`);
    assert.deepEqual(actions.slice(1), [
      'cli user.invited ana@example.com {"expires_at":"2026-11-25T10:00:00.000Z","role":"analyst"}',
      'user:ana@example.com user.joined ana@example.com {"role":"analyst"}',
      'cli user.invited bo@example.com {"expires_at":"2026-11-25T10:00:00.000Z","role":"viewer"}',
    ]);
  });

  it('enrolment needs a current code; sign-in needs password and a code, each code once', async () => {
    const { users, clock, enrolled } = await setup();
    const { secret } = await enrolled();
    const address = '192.0.2.1';
    assert.deepEqual(
      await users.signIn({ email: 'ana@example.com', password: 'wrong password!', code: totpCode(secret, clock.now()), address }),
      {
        error: 'The e-mail, password or authentication code is not right.',
      },
    );
    const code = totpCode(secret, clock.now());
    const ok = await users.signIn({ email: 'ANA@example.com', password: PASSWORD, code, address });
    assert.ok('token' in ok && ok.stage === 'full');
    const again = await users.signIn({ email: 'ana@example.com', password: PASSWORD, code, address });
    assert.ok('error' in again, 'a TOTP code is accepted once');
    assert.equal((await users.resolveSession(ok.token))!.user.email, 'ana@example.com');
    const enrolledUser = (await users.resolveSession(ok.token))!.user;
    assert.throws(() => users.enrolmentSecret(enrolledUser), /already enrolled/, 'the secret is never shown again');
  });

  it('each recovery code signs in once', async () => {
    const { users, enrolled } = await setup();
    const { codes } = await enrolled();
    assert.equal(codes.length, 10);
    const address = '192.0.2.2';
    const first = await users.signIn({ email: 'ana@example.com', password: PASSWORD, code: codes[3]!.toLowerCase(), address });
    assert.ok('token' in first);
    const reused = await users.signIn({ email: 'ana@example.com', password: PASSWORD, code: codes[3]!, address });
    assert.ok('error' in reused);
    assert.ok('token' in (await users.signIn({ email: 'ana@example.com', password: PASSWORD, code: codes[4]!, address })));
  });

  it('failed sign-ins are limited per account over all addresses and per address, with a clear message', async () => {
    const { users, clock, enrolled } = await setup();
    const { secret } = await enrolled();
    // One guess from each of 50 addresses: the account's own limit (browsers never used before).
    for (let i = 0; i < THROTTLE.perAccount; i++) {
      const r = await users.signIn({ email: 'ana@example.com', password: 'wrong password!', code: '000000', address: `198.51.100.${i}` });
      assert.ok('error' in r && /not right/.test(r.error));
    }
    const locked = await users.signIn({
      email: 'ana@example.com',
      password: PASSWORD,
      code: totpCode(secret, clock.now()),
      address: '198.51.100.99',
    });
    assert.deepEqual(locked, { error: 'Too many failed sign-ins for this account. Try again in 15 minutes.' });
    clock.advance(THROTTLE.windowMs + 1000);
    assert.ok(
      'token' in
        (await users.signIn({
          email: 'ana@example.com',
          password: PASSWORD,
          code: totpCode(secret, clock.now()),
          address: '198.51.100.99',
        })),
    );

    for (let i = 0; i < THROTTLE.perAddress; i++)
      await users.signIn({ email: `nobody${i}@example.com`, password: 'x'.repeat(12), code: '', address: '203.0.113.7' });
    clock.advance(60_000);
    const fromAddress = await users.signIn({
      email: 'ana@example.com',
      password: PASSWORD,
      code: totpCode(secret, clock.now()),
      address: '203.0.113.7',
    });
    assert.deepEqual(fromAddress, { error: 'Too many failed sign-ins from your network address. Try again in 14 minutes.' });
  });

  it('sessions end after 30 idle minutes, after 12 h whatever the activity, and on sign-out', async () => {
    const { users, clock, enrolled } = await setup();
    const { secret } = await enrolled();
    const signIn = async () => {
      clock.advance(30_000);
      const r = await users.signIn({
        email: 'ana@example.com',
        password: PASSWORD,
        code: totpCode(secret, clock.now()),
        address: '192.0.2.9',
      });
      assert.ok('token' in r);
      return r.token;
    };
    const idle = await signIn();
    clock.advance(29 * 60_000);
    assert.ok(await users.resolveSession(idle));
    clock.advance(29 * 60_000);
    assert.ok(await users.resolveSession(idle), 'activity moved the idle end');
    clock.advance(30 * 60_000);
    assert.equal(await users.resolveSession(idle), null);

    const busy = await signIn();
    for (let i = 0; i < 25; i++) {
      clock.advance(29 * 60_000);
      if (i < 24) assert.ok(await users.resolveSession(busy), `still valid after ${(i + 1) * 29} minutes`);
    }
    assert.equal(await users.resolveSession(busy), null, 'absolute limit of 12 h');

    const out = await signIn();
    await users.endSession(out);
    assert.equal(await users.resolveSession(out), null);
  });

  it('disable and reset-2fa end every session; after a reset the password leads to a new enrolment', async () => {
    const { users, clock, enrolled } = await setup();
    const { sessionToken } = await enrolled();
    await users.resetTwoFactor('ana@example.com');
    assert.equal(await users.resolveSession(sessionToken), null);
    const r = await users.signIn({ email: 'ana@example.com', password: PASSWORD, code: '', address: '192.0.2.3' });
    assert.ok('token' in r && r.stage === 'enrol');
    const signedIn = (await users.resolveSession(r.token))!;
    const user = await users.ensureEnrolmentSecret(signedIn.user);
    const done = await users.completeEnrolment(user, signedIn.session.idDigest, totpCode(users.enrolmentSecret(user), clock.now()));
    assert.equal(done?.codes.length, 10);
    assert.equal((await users.resolveSession(done!.token))?.session.stage, 'full');
    await users.disableUser('ana@example.com');
    assert.equal(await users.resolveSession(done!.token), null);
    assert.deepEqual(
      (await users.listUsers()).map((u) => [u.email, u.status, u.totp_enrolled]),
      [['ana@example.com', 'disabled', true]],
    );
  });

  it('an organisation keeps at least one owner', async () => {
    const { users, org, enrolled } = await setup();
    await enrolled('owner');
    await assert.rejects(users.changeRole(org.id, 'ana@example.com', 'viewer', 'cli'), /at least one owner/);
    await assert.rejects(users.removeMember(org.id, 'ana@example.com', 'cli'), /at least one owner/);
    await enrolled('viewer', 'bo@example.com');
    await users.changeRole(org.id, 'bo@example.com', 'owner', 'user:ana@example.com');
    await users.changeRole(org.id, 'ana@example.com', 'admin', 'user:bo@example.com');
    assert.deepEqual(
      (await users.members(org.id)).map((m) => [m.email, m.role]),
      [
        ['ana@example.com', 'admin'],
        ['bo@example.com', 'owner'],
      ],
    );
  });
});
