import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { before, describe, it } from 'node:test';
import type { Harness } from '../helpers/app.js';
import { buildHarness, suiteTeardown } from '../helpers/app.js';
import { redactUrl } from '../../src/http/logging.js';
import { followPath, Reporter } from '../disclosure/reporter.js';

// The tokens of set-up, invitation and follow-up links stay out of the request log however the
// path that reaches their page is spelt: the router decodes %66ollow, %73etup and %69nvite to
// the real pages, so the log redacts the path the router matched, not the bytes that came.

describe('the request log, on the real routes', () => {
  const teardown = suiteTeardown();
  let h: Harness;
  let log = '';
  let setupToken: string;
  let inviteToken: string;
  let followToken: string;

  before(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk) => {
      log += chunk;
    });
    h = await buildHarness(teardown, { LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }, { app: { logger: { stream } } });
    setupToken = await h.setup.newLink();
    await h.orgs.createOrg({ slug: 'o' });
    inviteToken = (await h.users.invite({ org: 'o', email: 'new@o.example', role: 'analyst', actor: 'cli' })).token;
    await h.disclosure.configure('o', { enabled: true });
    const sent = await new Reporter(h.app).report('o', { description: 'a report whose link is followed' });
    followToken = followPath(sent.body).split('/').pop()!;
  });

  /** The request lines of `url` (arrival and completion) once it has been answered. */
  async function linesOf(url: string): Promise<{ status: number; body: string; urls: string[]; text: string }> {
    log = '';
    const response = await h.app.inject({ method: 'GET', url });
    await new Promise((resolve) => setImmediate(resolve));
    const lines = log
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { req?: { url: string } });
    return { status: response.statusCode, body: response.body, urls: lines.flatMap((l) => (l.req ? [l.req.url] : [])), text: log };
  }

  const cases = [
    {
      name: 'a follow-up link',
      path: (t: string) => `/disclose/o/%66ollow/${t}`,
      token: () => followToken,
      logged: '/disclose/o/follow/[redacted]',
    },
    { name: 'a set-up link', path: (t: string) => `/console/%73etup/${t}`, token: () => setupToken, logged: '/console/setup/[redacted]' },
    {
      name: 'an invitation',
      path: (t: string) => `/console/%69nvite/${t}`,
      token: () => inviteToken,
      logged: '/console/invite/[redacted]',
    },
  ];
  for (const c of cases) {
    it(`keeps the token of ${c.name} out when its path is percent-encoded`, async () => {
      const seen = await linesOf(`${c.path(c.token())}?x=1`);
      // It reached the real page (the token was accepted), so the token is a live one.
      assert.equal(seen.status, 200, seen.body);
      assert.deepEqual(seen.urls, [`${c.logged}?x=1`, `${c.logged}?x=1`], seen.text);
      assert.equal(seen.text.includes(c.token()), false, seen.text);
    });
  }

  it('keeps it out of a sign-in page that leads back to an invitation spelt so', async () => {
    const seen = await linesOf(`/console/sign-in?next=${encodeURIComponent(`/console/%69nvite/${inviteToken}`)}`);
    assert.equal(seen.text.includes(inviteToken), false, seen.text);
    assert.ok(seen.urls.length > 0 && seen.urls.every((u) => u === '/console/sign-in?next=%2Fconsole%2Finvite%2F[redacted]'), seen.text);
  });

  it('logs every other URL as it came', async () => {
    const seen = await linesOf('/disclose/o/%72eport?q=%69nvite');
    assert.deepEqual(seen.urls, ['/disclose/o/%72eport?q=%69nvite', '/disclose/o/%72eport?q=%69nvite']);
  });
});

describe('redactUrl, for requests no route matched', () => {
  it('reads escaped letters as the router and a redirect would', () => {
    assert.equal(redactUrl('/disclose/o/%66ollow/TOKEN'), '/disclose/o/follow/[redacted]');
    assert.equal(redactUrl('/console/%73etup/T'), '/console/setup/[redacted]');
    assert.equal(redactUrl('/console/%69nvite/T?a=1'), '/console/invite/[redacted]?a=1');
    assert.equal(redactUrl('/console/sign-in?next=%2Fconsole%2F%2569nvite%2FT'), '/console/sign-in?next=%2Fconsole%2Finvite%2F[redacted]');
    assert.equal(
      redactUrl('/console/sign-in?next=%252Fconsole%252Fsetup%252FT'),
      '/console/sign-in?next=%252Fconsole%252Fsetup%252F[redacted]',
    );
    assert.equal(redactUrl('/%64isclose/o/follow/T'), '/disclose/o/follow/[redacted]');
  });

  it('leaves a URL without such a link as it came', () => {
    for (const url of ['/console/o/acme/%74oday', '/api/v1/external/products?q=%2F%69', '/disclose/o/%72eport', '/x?y=%25%zz'])
      assert.equal(redactUrl(url), url);
  });
});
