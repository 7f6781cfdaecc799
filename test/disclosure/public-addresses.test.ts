import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { buildHarness, type Harness } from '../helpers/app.js';
import { rawRequest } from '../helpers/raw-http.js';
import { multipart, Reporter } from './reporter.js';

// The public pages' addresses come from the configuration, never from a request: security.txt's
// Contact, Policy and Canonical and the follow-up link are on PUBLIC_URL, else on HOST and PORT
// (as the console's set-up link is); links from one page to another are paths. A Host header
// (or, behind a trusted proxy, X-Forwarded-Host) of an attacker's choosing appears nowhere.

const EVIL = 'evil.example/phish?x=';

async function enabled(t: Parameters<typeof buildHarness>[0], env: Record<string, string> = {}): Promise<Harness> {
  const h = await buildHarness(t, { SBOM_WARM_UP: 'false', ...env });
  await h.orgs.createOrg({ slug: 'acme' });
  await h.disclosure.configure('acme', { enabled: true });
  return h;
}

/** security.txt's fields. */
function fields(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
  );
}

/** Every public page of the organisation, as fetched with `headers`: policy, form, security.txt, a sent report, a refused one. */
async function everyPage(h: Harness, headers: Record<string, string>): Promise<Record<string, string>> {
  const get = async (url: string) => (await h.app.inject({ method: 'GET', url, headers })).body;
  const r = new Reporter(h.app);
  await r.get('/disclose/acme/report');
  const post = async (form: Array<[string, string]>) => {
    const body = multipart([['_csrf', r.csrf], ...form]);
    const response = await h.app.inject({
      method: 'POST',
      url: '/disclose/acme/report',
      payload: body.payload,
      headers: { ...headers, cookie: r.cookie, 'content-type': body.contentType },
      remoteAddress: r.address,
    });
    return response.body;
  };
  return {
    policy: await get('/disclose/acme'),
    form: await get('/disclose/acme/report'),
    securityTxt: await get('/disclose/acme/security.txt'),
    sent: await post([['description', 'a report']]),
    refused: await post([['description', ' ']]),
    honeypot: await post([
      ['description', 'spam'],
      ['website', 'x'],
    ]),
  };
}

describe("the public pages' addresses", () => {
  it('never come from the Host header: security.txt and the follow-up link on HOST and PORT, links by path', async (t) => {
    const h = await enabled(t, { HOST: '192.0.2.10', PORT: '9443' });
    const pages = await everyPage(h, { host: EVIL });
    for (const [name, body] of Object.entries(pages)) assert.equal(body.includes('evil.example'), false, `${name}:\n${body}`);
    assert.deepEqual(
      [fields(pages.securityTxt!).Contact, fields(pages.securityTxt!).Policy, fields(pages.securityTxt!).Canonical],
      [
        'http://192.0.2.10:9443/disclose/acme/report',
        'http://192.0.2.10:9443/disclose/acme',
        'http://192.0.2.10:9443/disclose/acme/security.txt',
      ],
    );
    assert.match(pages.sent!, /id="follow-link" href="http:\/\/192\.0\.2\.10:9443\/disclose\/acme\/follow\/[A-Za-z0-9_-]{43}"/);
    assert.match(pages.policy!, /<a href="\/disclose\/acme\/report">Report a vulnerability<\/a>/);
    assert.match(pages.form!, /<form method="post" action="\/disclose\/acme\/report"/);
    assert.match(pages.refused!, /<a href="\/disclose\/acme\/report">start again<\/a>/);
  });

  it('nor from X-Forwarded-Host behind a trusted proxy; PUBLIC_URL when it is set', async (t) => {
    const h = await enabled(t, { PUBLIC_URL: 'https://cra.example.com', TRUST_PROXY: 'true' });
    const pages = await everyPage(h, { host: EVIL, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' });
    for (const [name, body] of Object.entries(pages)) assert.equal(body.includes('evil.example'), false, `${name}:\n${body}`);
    assert.equal(fields(pages.securityTxt!).Contact, 'https://cra.example.com/disclose/acme/report');
    assert.match(pages.sent!, /id="follow-link" href="https:\/\/cra\.example\.com\/disclose\/acme\/follow\//);
  });

  it('on the port the server listens on when PORT=0 lets the system choose, as the set-up link', async (t) => {
    const h = await enabled(t, { PORT: '0', HOST: '127.0.0.1' });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as AddressInfo;
    const txt = await rawRequest(port, 'GET /disclose/acme/security.txt HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n');
    assert.equal(txt.status, 200, txt.body);
    assert.equal(fields(txt.body).Contact, `http://127.0.0.1:${port}/disclose/acme/report`);
  });
});
