import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { RedisRateLimitStore } from '../../src/http/rate-limit/index.js';
import type { Services } from '../../src/services.js';
import { buildHarness, type Harness } from '../helpers/app.js';
import { TEST_BACKEND, TEST_REDIS_URL } from '../helpers/db.js';
import { multipart, Reporter } from './reporter.js';

// The report limits against a client that rotates its address (issue 38): behind a trusted
// proxy with a fresh X-Forwarded-For each time, 40 reports of 40 were accepted, and a second
// instance accepted 10 more. Now an IPv6 address counts by its /64, and each organisation's form
// accepts DISCLOSURE_ORG_REPORTS_PER_HOUR (30) from all addresses together, in the rate-limit
// store every instance shares when REDIS_URL is set.

/** Honeypot posts (a bot's: nothing is created, yet each counts), each from `address` as the proxy says. */
function poster(app: FastifyInstance, r: Reporter) {
  return async (slug: string, address: string) => {
    const body = multipart([
      ['_csrf', r.csrf],
      ['description', 'flood'],
      ['website', 'https://spam.example'],
    ]);
    return app.inject({
      method: 'POST',
      url: `/disclose/${slug}/report`,
      payload: body.payload,
      headers: { cookie: r.cookie, 'content-type': body.contentType, 'x-forwarded-for': address },
      remoteAddress: '10.0.0.2',
    });
  };
}

async function enabled(h: Harness, ...slugs: string[]): Promise<void> {
  for (const slug of slugs) {
    await h.orgs.createOrg({ slug });
    await h.disclosure.configure(slug, { enabled: true });
  }
}

/** A reporter holding a form token of `slug`'s form. */
async function formOf(h: Harness, slug: string): Promise<Reporter> {
  const r = new Reporter(h.app, '10.0.0.2');
  await r.get(`/disclose/${slug}/report`);
  return r;
}

describe('report limits against rotating addresses', () => {
  it('counts an IPv6 address by its /64', async (t) => {
    const h = await buildHarness(t, { TRUST_PROXY: 'true' });
    await enabled(h, 'six');
    const post = poster(h.app, await formOf(h, 'six'));
    for (let i = 1; i <= 10; i++) assert.equal((await post('six', `2001:db8:1:2::${i.toString(16)}`)).statusCode, 200, `post ${i}`);
    const rotated = await post('six', '2001:db8:1:2:ffff:ffff:ffff:1');
    assert.equal(rotated.statusCode, 429, 'another address of the same /64');
    assert.match(rotated.body, /Too many reports were sent from your network address in the last hour/);
    assert.equal((await post('six', '2001:db8:1:3::1')).statusCode, 200, 'the next /64 is another client');
  });

  it("caps an organisation's form at 30 an hour from all addresses together; other forms go on", async (t) => {
    const h = await buildHarness(t, { TRUST_PROXY: 'true' });
    await enabled(h, 'rotated', 'other');
    const post = poster(h.app, await formOf(h, 'rotated'));
    const statuses: number[] = [];
    for (let i = 1; i <= 40; i++) statuses.push((await post('rotated', `198.51.100.${i}`)).statusCode);
    assert.deepEqual(statuses, [...Array(30).fill(200), ...Array(10).fill(429)]);
    const refused = await post('rotated', '203.0.113.200');
    assert.match(
      refused.body,
      /Too many reports reached this form in the last hour, from all senders together\. Try again in \d+ minutes?\./,
    );
    assert.ok(Number(refused.headers['retry-after']) > 0);
    // Refused posts did not spend their addresses' allowances elsewhere, and another form is open.
    assert.equal((await poster(h.app, await formOf(h, 'other'))('other', '198.51.100.1')).statusCode, 200);
    // An hour later the form accepts again.
    h.clock.advance(3_600_000);
    assert.equal((await post('rotated', '198.51.100.41')).statusCode, 200);
  });

  it('takes the cap from DISCLOSURE_ORG_REPORTS_PER_HOUR', async (t) => {
    const h = await buildHarness(t, { TRUST_PROXY: 'true', DISCLOSURE_ORG_REPORTS_PER_HOUR: '3' });
    await enabled(h, 'small');
    const post = poster(h.app, await formOf(h, 'small'));
    const statuses = [];
    for (let i = 1; i <= 4; i++) statuses.push((await post('small', `192.0.2.${i}`)).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  it('holds the cap across instances that share Redis', {
    skip: TEST_BACKEND !== 'postgres' && 'the postgres run is the one with Redis',
  }, async (t) => {
    const prefix = `test:${randomUUID()}:`;
    const first = new RedisRateLimitStore(TEST_REDIS_URL, { keyPrefix: prefix });
    const second = new RedisRateLimitStore(TEST_REDIS_URL, { keyPrefix: prefix });
    await Promise.all([first.waitUntilReady(), second.waitUntilReady()]);
    t.after(() => second.close());
    const h = await buildHarness(t, { TRUST_PROXY: 'true' }, { store: first });
    await enabled(h, 'shared');
    // A second instance: the same database and services, its own app and its own Redis client.
    const services = { ...h, clock: h.clock.now } as unknown as Services;
    const other = await buildApp({ config: h.config, services, rateLimitStore: second, logger: false });
    t.after(() => other.close());
    const r = await formOf(h, 'shared');
    const onFirst = poster(h.app, r);
    const onSecond = poster(other, r);
    for (let i = 1; i <= 20; i++) assert.equal((await onFirst('shared', `198.51.100.${i}`)).statusCode, 200);
    for (let i = 21; i <= 30; i++) assert.equal((await onSecond('shared', `198.51.100.${i}`)).statusCode, 200);
    assert.equal((await onSecond('shared', '198.51.100.31')).statusCode, 429, 'the 31st of the hour, on the other instance');
    assert.equal((await onFirst('shared', '198.51.100.32')).statusCode, 429);
  });
});
