import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/index.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit/index.js';
import { createServices } from '../../src/services.js';
import { totpCode } from '../../src/users/totp.js';
import { THROTTLE } from '../../src/users/users.service.js';
import { type Harness, TEST_CONSOLE_SECRET, useHarness } from '../helpers/app.js';
import { ConsoleAgent, PASSWORD, signedInAgent } from '../helpers/console.js';
import { TEST_BACKEND } from '../helpers/db.js';

// Sign-in limits attacked as an attacker would, through the console's HTTP routes on both
// backends: many wrong sign-ins in parallel (the count, the check and the record of a failure
// are one step, so no limit is passed), on two instances of one database, and an attacker who
// knows only the e-mail trying to lock its owner out.

/** Wrong sign-ins for `email`, all at once, each from `addressOf(i)`; the statuses. */
async function guesses(h: Harness, count: number, email: (i: number) => string, address: (i: number) => string, app = h.app) {
  const agents = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const agent = new ConsoleAgent(app, address(i));
      await agent.get('/console/sign-in');
      return agent;
    }),
  );
  const responses = await Promise.all(
    agents.map((agent, i) => agent.post('/console/sign-in', { email: email(i), password: `wrong guess ${i}`, code: '000000' })),
  );
  return responses.map((r) => r.statusCode);
}

const checked = (statuses: number[]) => statuses.filter((s) => s === 401).length;

/** Signs in on `agent` with the password and the next TOTP step (or `code`). */
async function signIn(h: Harness, agent: ConsoleAgent, email: string, secret: string, code?: string) {
  await agent.get('/console/sign-in');
  h.clock.advance(30_000);
  return agent.post('/console/sign-in', { email, password: PASSWORD, code: code ?? totpCode(secret, h.clock.now()) });
}

describe('console sign-in limits under attack', () => {
  const harness = useHarness();

  it('40 wrong sign-ins for one account from one address in parallel: exactly 5 are checked', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'par-org' });
    await signedInAgent(h, 'par-org', 'par@example.com', 'owner');
    const statuses = await guesses(
      h,
      40,
      () => 'par@example.com',
      () => '203.0.113.40',
    );
    assert.equal(checked(statuses), THROTTLE.perAccountAndAddress, `statuses: ${statuses}`);
    assert.equal(statuses.filter((s) => s === 429).length, 40 - THROTTLE.perAccountAndAddress);
  });

  it('150 wrong sign-ins for one account from 150 addresses in parallel: the account limit holds exactly', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'spread-org' });
    await signedInAgent(h, 'spread-org', 'spread@example.com', 'owner');
    const statuses = await guesses(
      h,
      150,
      () => 'spread@example.com',
      (i) => `198.18.${Math.floor(i / 200)}.${i % 200}`,
    );
    assert.equal(checked(statuses), THROTTLE.perAccount, `statuses: ${statuses}`);
  });

  it('60 wrong sign-ins for 60 accounts from one address in parallel: exactly 20 are checked', async () => {
    const h = harness();
    const statuses = await guesses(
      h,
      60,
      (i) => `nobody${i}@example.com`,
      () => '203.0.113.60',
    );
    assert.equal(checked(statuses), THROTTLE.perAddress, `statuses: ${statuses}`);
  });

  it('an attacker who knows only the e-mail cannot lock its owner out', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'lock-org' });
    const email = 'owner@example.com';
    const { agent: laptop, secret, codes } = await signedInAgent(h, 'lock-org', email, 'owner');
    /** The owner's browser (signed out, its device cookie kept), wherever it is. */
    const onDevice = (address: string) => {
      const agent = new ConsoleAgent(h.app, address);
      agent.cookies.set('cra_device', laptop.cookies.get('cra_device')!);
      return agent;
    };

    // Thirty guesses from one address: five are checked there, then that address is refused.
    const attack = await guesses(
      h,
      30,
      () => email,
      () => '203.0.113.66',
    );
    assert.equal(checked(attack), THROTTLE.perAccountAndAddress);
    // The owner, from anywhere else, in a browser never used before: password and code, or a recovery code.
    assert.equal((await signIn(h, new ConsoleAgent(h.app, '198.51.100.7'), email, secret)).statusCode, 303);
    assert.equal((await signIn(h, new ConsoleAgent(h.app, '198.51.100.8'), email, secret, codes[0])).statusCode, 303);
    // Even from the attacker's address (one NAT), on a device of theirs.
    assert.ok(laptop.cookies.has('cra_device'), 'enrolment makes the browser one of the devices');
    assert.equal((await signIn(h, onDevice('203.0.113.66'), email, secret)).statusCode, 303);

    // A guess spread over many addresses fills the account's own limit: browsers never used
    // before are then refused, the owner's devices are not.
    await guesses(
      h,
      THROTTLE.perAccount,
      () => email,
      (i) => `198.18.1.${i}`,
    );
    assert.equal((await signIn(h, new ConsoleAgent(h.app, '198.51.100.9'), email, secret)).statusCode, 429);
    assert.equal((await signIn(h, onDevice('198.51.100.10'), email, secret)).statusCode, 303);
    assert.equal((await signIn(h, onDevice('198.51.100.11'), email, secret, codes[1])).statusCode, 303);

    // A device cookie is the owner's: the attacker's own account's device gives no way around the limits.
    await h.orgs.createOrg({ slug: 'mallory-org' });
    const { agent: mallory } = await signedInAgent(h, 'mallory-org', 'mallory@example.com', 'owner');
    const borrowed = new ConsoleAgent(h.app, '203.0.113.66');
    borrowed.cookies.set('cra_device', mallory.cookies.get('cra_device')!);
    assert.equal((await signIn(h, borrowed, email, secret)).statusCode, 429);

    // A device has a limit of its own: five wrong guesses from it, then it is refused too.
    const device = onDevice('192.0.2.1');
    await device.get('/console/sign-in');
    const fromDevice = [];
    for (let i = 0; i < THROTTLE.perDevice + 1; i++)
      fromDevice.push((await device.post('/console/sign-in', { email, password: `wrong ${i}`, code: '000000' })).statusCode);
    assert.deepEqual(fromDevice, [...Array(THROTTLE.perDevice).fill(401), 429]);
    h.clock.advance(THROTTLE.windowMs);
    assert.equal((await signIn(h, device, email, secret)).statusCode, 303, 'the window passes');
  });

  it('two instances of one database share the limits', {
    skip: TEST_BACKEND !== 'postgres' && 'several instances need PostgreSQL',
  }, async (t) => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'two-org' });
    await signedInAgent(h, 'two-org', 'two@example.com', 'owner');
    // A second instance: its own connections to the same database, its own app.
    const database = openDatabase(h.config.databaseUrl);
    const services = createServices({
      database,
      clock: h.clock.now,
      console: { secret: TEST_CONSOLE_SECRET, idleMinutes: h.config.consoleIdleMinutes },
      webhookPolicy: h.config.webhooks,
    });
    const store = new MemoryRateLimitStore();
    const second = await buildApp({ config: h.config, services, rateLimitStore: store, logger: false });
    t.after(async () => {
      await second.close();
      await services.close();
      await database.close();
    });
    const agents = Array.from({ length: 40 }, (_, i) => new ConsoleAgent(i % 2 ? second : h.app, '203.0.113.2'));
    for (const agent of agents) await agent.get('/console/sign-in');
    const statuses = await Promise.all(
      agents.map((agent, i) => agent.post('/console/sign-in', { email: 'two@example.com', password: `wrong ${i}`, code: '1' })),
    );
    assert.equal(checked(statuses.map((r) => r.statusCode)), THROTTLE.perAccountAndAddress);
  });
});
