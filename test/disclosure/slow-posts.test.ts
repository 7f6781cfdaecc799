import assert from 'node:assert/strict';
import type { AddressInfo, Socket } from 'node:net';
import { describe, it } from 'node:test';
import { buildHarness, type Harness } from '../helpers/app.js';
import { type RawResponse, rawRequest } from '../helpers/raw-http.js';
import { multipart, Reporter } from './reporter.js';

// Slow anonymous posts against the report form (issue 38): two chunked posts that sent a byte a
// second reserved the whole memory bound of the report bodies before a byte had come, and every
// organisation's form answered 503 for as long as they lasted (the form's deadline: 5 minutes).
// Now a body holds what it has sent, and one that does not arrive at a living pace is cut. The
// pace is judged here over windows of 1.5 s instead of 10 s, so the test takes seconds.

const PACE = { windowMs: 1_500, minBytesPerSecond: 100 };
const BOUNDARY = '----slowpost';

async function server(t: Parameters<typeof buildHarness>[0]): Promise<{ h: Harness; port: number }> {
  const h = await buildHarness(t, { SBOM_WARM_UP: 'false' }, { app: { reportBodyPace: PACE } });
  for (const slug of ['a', 'b', 'c']) {
    await h.orgs.createOrg({ slug });
    await h.disclosure.configure(slug, { enabled: true });
  }
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  return { h, port: (h.app.server.address() as AddressInfo).port };
}

const chunk = (data: string) => `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;

/**
 * A chunked post to `slug`'s form over a raw socket, with a real form token: the token and the
 * head of an attachment at once, then one byte every `everyMs`, never the end.
 */
async function trickle(h: Harness, port: number, slug: string, everyMs: number): Promise<{ response: Promise<RawResponse>; stop(): void }> {
  const r = new Reporter(h.app, '127.0.0.1');
  await r.get(`/disclose/${slug}/report`);
  const head = [
    `POST /disclose/${slug}/report HTTP/1.1`,
    'Host: 127.0.0.1',
    `Cookie: ${r.cookie}`,
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
    'Transfer-Encoding: chunked',
    '',
    '',
  ].join('\r\n');
  const start =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${r.csrf}\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachments"; filename="slow.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  let timer: NodeJS.Timeout | undefined;
  const response = rawRequest(port, head + chunk(start), {
    timeoutMs: 20_000,
    // biome-ignore lint/suspicious/noThenProperty: rawRequest's option for what to do once connected
    then: (socket: Socket) => {
      timer = setInterval(() => {
        if (!socket.destroyed) socket.write(chunk('x'));
      }, everyMs);
    },
  });
  void response.finally(() => clearInterval(timer));
  return { response, stop: () => clearInterval(timer) };
}

describe('slow posts to the report form', () => {
  it("two posts that send a byte a second close no organisation's form, and are cut long before the deadline", async (t) => {
    const { h, port } = await server(t);
    const started = Date.now();
    const a = await trickle(h, port, 'a', 1_000);
    const b = await trickle(h, port, 'b', 1_000);
    t.after(() => {
      a.stop();
      b.stop();
    });
    // Both are being read (each has sent its token and an attachment's head) when a reporter
    // sends a normal report to a third organisation's form.
    await new Promise((resolve) => setTimeout(resolve, 800));
    const normal = await new Reporter(h.app).report('c', { description: 'A real report while two posts trickle.' }, [
      { filename: 'trace.txt', bytes: Buffer.alloc(64 * 1024, 'x') },
    ]);
    assert.equal(normal.statusCode, 200, normal.body);
    assert.match(normal.body, /Report received/);

    for (const slow of [await a.response, await b.response]) {
      assert.equal(slow.status, 408, slow.body);
      assert.match(slow.body, /under the 100 this operation needs/);
      assert.ok(slow.closed, 'the connection is closed');
    }
    const elapsed = Date.now() - started;
    // Two windows of 1.5 s (the grace, then one too slow), far from the 5-minute deadline.
    assert.ok(elapsed < 10_000, `cut after ${elapsed} ms`);
    assert.equal((await h.incidents.listSignals('a')).length, 0);
    assert.equal((await h.incidents.listSignals('c')).length, 1);
  });

  it('lets a slow but living body through, over many windows', async (t) => {
    const { h, port } = await server(t);
    const r = new Reporter(h.app, '127.0.0.1');
    await r.get('/disclose/a/report');
    const body = multipart(
      [
        ['_csrf', r.csrf],
        ['description', 'sent at 500 bytes a second'],
      ],
      [{ filename: 'trace.bin', bytes: Buffer.alloc(2_500, 1) }],
    );
    const pieces: Buffer[] = [];
    for (let i = 0; i < body.payload.length; i += 100) pieces.push(body.payload.subarray(i, i + 100));
    const head = `POST /disclose/a/report HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${r.cookie}\r\nContent-Type: ${body.contentType}\r\nContent-Length: ${body.payload.length}\r\n\r\n`;
    const sent = await rawRequest(port, head, {
      timeoutMs: 20_000,
      // biome-ignore lint/suspicious/noThenProperty: rawRequest's option for what to do once connected
      then: (socket) => {
        let i = 0;
        const next = () => {
          if (i < pieces.length && !socket.destroyed) socket.write(pieces[i++]!, () => setTimeout(next, 200));
        };
        next();
      },
    });
    assert.equal(sent.status, 200, sent.body);
    assert.ok(sent.elapsedMs > 2 * PACE.windowMs, `${sent.elapsedMs} ms: judged more than once`);
    assert.equal((await h.incidents.listSignals('a')).length, 1);
  });
});
