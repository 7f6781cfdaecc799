import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { buildHarness, useHarness } from '../helpers/app.js';
import { postIncident } from '../helpers/incidents.js';
import { rawRequest } from '../helpers/raw-http.js';
import { followPath, multipart, Reporter } from './reporter.js';

// The report form under abuse (disclosure.md): forged and foreign form tokens, the honeypot,
// attachments beyond the count or the size (decided while streaming), too many parts, a body
// declared too large, a body that stalls, script in every field, per-address limits with a
// clear page, and a flood on one organisation's form that leaves the API and the others alone.

const MiB = 1024 * 1024;
const SCRIPT = '<script>alert(1)</script>';

describe('the report form under abuse', () => {
  const harness = useHarness();

  async function enabled(slug: string) {
    const h = harness();
    await h.orgs.createOrg({ slug });
    await h.disclosure.configure(slug, { enabled: true });
    return h;
  }
  const count = async (slug: string) => (await harness().incidents.listSignals(slug)).length;

  it('refuses a forged, missing or foreign form token, and a post without the form cookie, creating nothing', async () => {
    const h = await enabled('tokens');
    await enabled('elsewhere');
    const r = new Reporter(h.app);
    const forged = await r.report('tokens', { description: 'forged' }, [], { csrf: 'AAAA-forged-token' });
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /This form has expired or was not sent from this site/);
    const missing = await r.report('tokens', { description: 'no token' }, [], { csrf: null });
    assert.equal(missing.statusCode, 403);
    // A token of another organisation's form (same browser, same cookie) is worth nothing here.
    await r.get('/disclose/elsewhere/report');
    const foreign = await r.report('tokens', { description: 'foreign' }, [], { open: false });
    assert.equal(foreign.statusCode, 403);
    // A cross-site post carries no cookie (SameSite=Lax): the token alone does not pass.
    await r.get('/disclose/tokens/report');
    const token = r.csrf;
    const stranger = new Reporter(h.app, '198.51.100.9');
    const crossSite = await stranger.report('tokens', { description: 'cross-site' }, [], { open: false, csrf: token });
    assert.equal(crossSite.statusCode, 403);
    const cookie = (await new Reporter(h.app).get('/disclose/tokens/report')).headers['set-cookie'];
    assert.match(String(cookie), /HttpOnly/i);
    assert.match(String(cookie), /SameSite=Lax/i);
    assert.equal(await count('tokens'), 0);
    // The follow-up page's message form is protected the same way.
    const sent = await r.report('tokens', { description: 'real' });
    const follow = followPath(sent.body);
    r.csrf = 'forged';
    assert.equal((await r.post(follow, { message: 'hi' })).statusCode, 403);
  });

  it('answers a filled honeypot with the normal confirmation and creates nothing', async () => {
    const h = await enabled('honey');
    const r = new Reporter(h.app);
    const bot = await r.report('honey', { description: 'buy pills', website: 'https://spam.example' });
    assert.equal(bot.statusCode, 200);
    assert.match(bot.body, /Report received/);
    const link = followPath(bot.body);
    assert.equal(await count('honey'), 0);
    assert.equal((await r.get(link)).statusCode, 404, 'its link leads nowhere');
  });

  it('refuses more than 5 attachments, one over 10 MiB and too many parts with a 413 page, creating nothing', async () => {
    const h = await enabled('sizes');
    const r = new Reporter(h.app);
    const six = Array.from({ length: 6 }, (_, i) => ({ filename: `f${i}.txt`, bytes: Buffer.from(`file ${i}`) }));
    const many = await r.report('sizes', { description: 'six files' }, six);
    assert.equal(many.statusCode, 413);
    assert.match(many.body, /at most 5 attachments of at most 10 MiB each/);
    assert.equal(many.headers.connection, 'close');
    const big = await r.report('sizes', { description: 'big file' }, [{ filename: 'big.bin', bytes: Buffer.alloc(10 * MiB + 1) }]);
    assert.equal(big.statusCode, 413);
    const exact = await r.report('sizes', { description: 'ten MiB exactly' }, [
      { filename: 'ok.bin', bytes: Buffer.alloc(10 * MiB) },
      // What a browser sends for a file input left empty: no name, no bytes; not an attachment.
      { filename: '', bytes: Buffer.alloc(0) },
    ]);
    assert.equal(exact.statusCode, 200, 'exactly 10 MiB is allowed');
    assert.equal((await h.database.db.selectFrom('disclosure_attachments').select('size').execute()).length, 1);
    const fields: Array<[string, string]> = [['_csrf', r.csrf], ...Array.from({ length: 40 }, (): [string, string] => ['title', 'x'])];
    await r.get('/disclose/sizes/report');
    const body = multipart([['_csrf', r.csrf], ...fields.slice(1)]);
    const parts = await h.app.inject({
      method: 'POST',
      url: '/disclose/sizes/report',
      payload: body.payload,
      headers: { cookie: r.cookie, 'content-type': body.contentType },
      remoteAddress: r.address,
    });
    assert.equal(parts.statusCode, 413);
    const long = await r.report('sizes', { description: 'x'.repeat(64 * 1024 + 1) });
    assert.equal(long.statusCode, 413, 'a field over 64 KiB');
    assert.equal(await count('sizes'), 1);
  });

  it('reflects no input, and escapes script in every field wherever it is shown', async () => {
    const h = await enabled('script');
    const r = new Reporter(h.app);
    const bad = await r.report('script', { description: 'ok', cve: `<b>CVE-bogus</b>${SCRIPT}`, title: 'Reflect me please' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /CVE: give it as CVE-YYYY-NNNN, or leave it empty\./);
    assert.doesNotMatch(bad.body, /bogus|Reflect me|alert\(1\)/, 'nothing sent comes back');
    const blank = await r.report('script', { description: '   ' });
    assert.equal(blank.statusCode, 400);
    assert.match(blank.body, /Description: describe the vulnerability/);
    // Another organisation's product (its id in the form's select): refused, not matched.
    await h.orgs.createOrg({ slug: 'owner-of-product' });
    const foreign = await h.products.addProduct('owner-of-product', 'SECRET-1', { name: 'Not yours' });
    const wrongProduct = await r.report('script', { description: 'ok', product: foreign.id });
    assert.equal(wrongProduct.statusCode, 400);
    assert.match(wrongProduct.body, /Choose one of the listed products, or &quot;not sure&quot;\./);
    const nul = await r.report('script', { description: 'a\u0000b' });
    assert.equal(nul.statusCode, 400);
    assert.equal(nul.body.includes('a\u0000b'), false);

    const every = Object.fromEntries(
      ['title', 'description', 'affected_versions', 'how_found', 'reporter_name', 'reporter_contact', 'credit'].map((f) => [
        f,
        `${f} ${SCRIPT}`,
      ]),
    );
    const sent = await r.report('script', every, [{ filename: `${SCRIPT}.txt`, bytes: Buffer.from('x') }]);
    assert.equal(sent.statusCode, 200);
    assert.doesNotMatch(sent.body, /<script>alert/);
    const follow = followPath(sent.body);
    await r.post(follow, { message: `message ${SCRIPT}` });
    const page = await r.get(follow);
    assert.doesNotMatch(page.body, /<script>alert/);
    assert.match(page.body, /title &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(page.body, /message &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.equal(await count('script'), 1);
  });

  it('limits posts per address per organisation and over all, with Retry-After and a clear page; other addresses, organisations and the API go on', async () => {
    const h = await enabled('flooded');
    await enabled('calm');
    await enabled('third');
    const api = await h.keys.createKey({ org: 'calm', name: 'erp', scopes: ['incidents:write'] });
    const flooder = new Reporter(h.app, '192.0.2.66');
    // Honeypot posts count like any other and create nothing: a cheap flood.
    const flood = (slug: string) => flooder.report(slug, { description: 'flood', website: 'x' });
    for (let i = 0; i < 10; i++) assert.equal((await flood('flooded')).statusCode, 200, `post ${i + 1}`);
    const refused = await flood('flooded');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers.connection, 'close', 'its body is never read');
    assert.ok(Number(refused.headers['retry-after']) > 0 && Number(refused.headers['retry-after']) <= 3600);
    assert.match(refused.body, /Too many reports were sent from your network address in the last hour\. Try again in \d+ minutes?\./);

    // The same address on another organisation's form, another address on this one, the API: unaffected.
    const calm = await flooder.report('calm', { description: 'a real report on another form' });
    assert.equal(calm.statusCode, 200);
    const neighbour = await new Reporter(h.app, '192.0.2.67').report('flooded', { description: 'someone else' });
    assert.equal(neighbour.statusCode, 200);
    assert.equal((await postIncident(h, api.secret, { description: 'ERP still reports' })).statusCode, 201);

    // 30 posts from one address over all organisations (the refused one above counted there).
    for (let i = 0; i < 9; i++) assert.equal((await flood('calm')).statusCode, 200);
    for (let i = 0; i < 8; i++) assert.equal((await flood('third')).statusCode, 200);
    assert.equal((await flood('third')).statusCode, 200);
    const overall = await flood('third');
    assert.equal(overall.statusCode, 429, 'the 31st post of the hour from this address');
    // An hour later the address may post again.
    h.clock.advance(3_600_000);
    assert.equal((await flood('flooded')).statusCode, 200);

    // Messages through a follow-up link: 30 an hour per address.
    const chatty = new Reporter(h.app, '192.0.2.80');
    const follow = followPath((await chatty.report('calm', { description: 'then many messages' })).body);
    await chatty.get(follow);
    for (let i = 0; i < 30; i++) assert.equal((await chatty.post(follow, { message: `message ${i}` })).statusCode, 200);
    const tooMany = await chatty.post(follow, { message: 'one more' });
    assert.equal(tooMany.statusCode, 429);
    assert.match(tooMany.body, /Too many messages were sent from your network address in the last hour/);
  });

  it('cuts a body that stalls, and refuses one declared too large before reading it', async (t) => {
    // An app of its own with a short body idle timeout (the stalled upload is cut within a
    // second), listening for raw sockets; without warming up the SBOM parse threads it would start.
    // REQUEST_TIMEOUT_MS of 1 s: the report form's own, longer deadline lets a slow upload finish.
    const h = await buildHarness(t, {
      BODY_IDLE_TIMEOUT_MS: '500',
      REQUEST_TIMEOUT_MS: '1000',
      HEADERS_TIMEOUT_MS: '1000',
      SBOM_WARM_UP: 'false',
    });
    await h.orgs.createOrg({ slug: 'slow' });
    await h.disclosure.configure('slow', { enabled: true });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as AddressInfo;
    const r = new Reporter(h.app, '127.0.0.1');
    await r.get('/disclose/slow/report');
    const body = multipart([
      ['_csrf', r.csrf],
      ['description', 'slow'],
    ]);
    const head = (length: number) =>
      `POST /disclose/slow/report HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${r.cookie}\r\nContent-Type: ${body.contentType}\r\nContent-Length: ${length}\r\n\r\n`;
    const stalled = await rawRequest(port, Buffer.concat([Buffer.from(head(body.payload.length + 1000)), body.payload.subarray(0, 100)]), {
      timeoutMs: 5000,
    });
    assert.equal(stalled.status, 408, stalled.body);
    assert.ok(stalled.closed, 'the connection is closed');
    // A slow but steady upload (a piece every 200 ms for 1.6 s) outlives REQUEST_TIMEOUT_MS and is received.
    const steady = multipart(
      [
        ['_csrf', r.csrf],
        ['description', 'slow but steady'],
      ],
      [{ filename: 'trace.bin', bytes: Buffer.alloc(4000, 1) }],
    );
    const pieces = Array.from({ length: 8 }, (_, i) =>
      steady.payload.subarray((i * steady.payload.length) / 8, ((i + 1) * steady.payload.length) / 8),
    );
    const steadyHead = head(steady.payload.length).replace(body.contentType, steady.contentType);
    const trickled = await rawRequest(port, steadyHead, {
      timeoutMs: 8000,
      // biome-ignore lint/suspicious/noThenProperty: rawRequest's option for what to do once connected
      then: (socket) => {
        let i = 0;
        const next = () => {
          if (i < pieces.length) socket.write(pieces[i++]!, () => setTimeout(next, 200));
        };
        setTimeout(next, 200);
      },
    });
    assert.equal(trickled.status, 200, trickled.body);
    assert.ok(trickled.elapsedMs > 1500, `${trickled.elapsedMs} ms`);
    const declared = await rawRequest(port, head(200 * MiB), { timeoutMs: 5000 });
    assert.equal(declared.status, 413);
    assert.ok(declared.elapsedMs < 2000, `answered at once, without waiting for the body (${declared.elapsedMs} ms)`);
    // What the stalled upload held is given back: a large report still fits (over a real socket:
    // inject's has no byte count for the idle check to watch).
    const form = new FormData();
    form.append('_csrf', r.csrf);
    form.append('description', 'after the stall');
    form.append('attachments', new Blob([Buffer.alloc(10 * MiB)]), 'a.bin');
    const after = await fetch(`http://127.0.0.1:${port}/disclose/slow/report`, {
      method: 'POST',
      body: form,
      headers: { cookie: r.cookie },
    });
    assert.equal(after.status, 200, await after.text());
    assert.equal((await h.incidents.listSignals('slow')).length, 2);
  });
});
