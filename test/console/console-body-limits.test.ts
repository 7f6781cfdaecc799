import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { HttpAgent } from '../helpers/console.js';
import { createEmptyDatabaseUrl, TEST_BACKEND } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';

// Request bodies the console reads, against the real server process: a multipart POST is read
// only by the route that takes a file, and only after the session, the role and the CSRF token
// are checked; anything else is answered before its body is read, so anonymous clients cannot
// make the server hold tens of MB each. The upload is streamed under the same in-flight bound
// as the API's SBOM bodies.

const MiB = 1024 * 1024;
const BOUNDARY = '----console-body-limits';
const DROPWIZARD = readFileSync(new URL('../fixtures/sbom/cyclonedx/dropwizard-1.3.15-bom.json', import.meta.url));
const ZEROS = Buffer.alloc(MiB, 0x20);

/** The start of a multipart body: the given fields, then the head of one file part. */
function multipartStart(fields: Record<string, string>, file = 'sbom'): Buffer {
  let text = '';
  for (const [name, value] of Object.entries(fields))
    text += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  text += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file}"; filename="bom.json"\r\nContent-Type: application/json\r\n\r\n`;
  return Buffer.from(text);
}
const MULTIPART_END = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

interface OpenPost {
  /** The status line's code once an answer arrives; 0 when the connection ends without one. */
  status: Promise<number>;
  /** Whether the answer came while this client had not finished sending. */
  answeredEarly: () => boolean;
  /** Sends the rest of a body of `length` bytes (filler, then the closing boundary), minding backpressure. */
  sendRest(): Promise<void>;
  close(): void;
}

/**
 * Opens a multipart POST declaring `length` bytes and sends only `start`; the rest is sent on
 * request. Errors of a connection the server closed are expected.
 */
function openPost(port: number, path: string, length: number, start: Buffer, cookie = ''): Promise<OpenPost> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let sent = 0;
    let answeredAt = -1;
    let text = '';
    socket.on('error', () => {});
    const status = new Promise<number>((done) => {
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
        if (match) {
          if (answeredAt < 0) answeredAt = sent;
          done(Number(match[1]));
        }
      });
      socket.on('close', () => done(0));
    });
    const write = (bytes: Buffer) =>
      new Promise<boolean>((ok) => {
        if (socket.destroyed || socket.writableEnded) return ok(false);
        sent += bytes.length;
        if (socket.write(bytes)) return ok(true);
        const stop = () => ok(false);
        socket.once('close', stop);
        socket.once('drain', () => {
          socket.removeListener('close', stop);
          ok(true);
        });
      });
    socket.on('connect', async () => {
      const head =
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
        `Content-Length: ${length}\r\n${cookie ? `Cookie: ${cookie}\r\n` : ''}\r\n`;
      await write(Buffer.concat([Buffer.from(head), start]));
      resolve({
        status,
        answeredEarly: () => answeredAt >= 0 && answeredAt < length,
        async sendRest() {
          let left = length - start.length - MULTIPART_END.length;
          while (left > 0) {
            const piece = left >= ZEROS.length ? ZEROS : ZEROS.subarray(0, left);
            if (!(await write(piece))) return;
            left -= piece.length;
          }
          await write(MULTIPART_END);
        },
        close: () => socket.destroy(),
      });
    });
  });
}

/** The resident set of a process, from /proc. */
function rss(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/** Waits for an answer, at most `ms`; 0 when none came. */
const within = (status: Promise<number>, ms: number) => Promise.race([status, new Promise<number>((r) => setTimeout(() => r(0), ms))]);

describe('request bodies of the console, against the server process', {
  skip: TEST_BACKEND !== 'sqlite' && 'runs once, in the SQLite pass',
}, () => {
  let server: RunningServer;
  let drop: () => Promise<void>;
  let env: Record<string, string>;
  let analyst: HttpAgent;
  let apiKey: string;

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    await runCli(['org', 'create', 'acme', '--name', 'Acme'], env);
    await runCli(['product', 'add', '--org', 'acme', '--sku', 'DW-1', '--name', 'Dropwizard box'], env);
    apiKey = (await runCli(['key', 'create', '--org', 'acme', '--name', 'ci', '--scopes', 'products:write', '--json'], env)).json().secret;
    // A bound of one maximum body, so that one API upload in flight fills it.
    server = await startServer({
      ...env,
      SBOM_MAX_BYTES: String(48 * MiB),
      SBOM_INFLIGHT_BYTES: String(48 * MiB),
      // A small young generation: drained chunks are collected as they go, so the memory test
      // below sees what is held, not how far the collector lags (Node 24's lags further: +92 MiB).
      NODE_OPTIONS: '--max-semi-space-size=2',
    });
    const invite = await runCli(['user', 'invite', '--org', 'acme', '--email', 'ana@example.com', '--role', 'analyst', '--json'], {
      ...env,
      PUBLIC_URL: server.url,
    });
    analyst = new HttpAgent(server.url);
    await analyst.accept(invite.json().url);
  });
  after(async () => {
    await server?.stop();
    await drop?.();
  });

  it('answers an anonymous multipart POST of 45 MB to any console route before its body is sent', async () => {
    for (const path of [
      '/console/sign-in',
      '/console/sign-out',
      '/console/enrol',
      '/console/invite/not-a-token',
      '/console/account/password',
      '/console/o/acme/keys',
      '/console/o/acme/products/DW-1/sbom',
    ]) {
      const post = await openPost(server.port, path, 45 * MiB, multipartStart({ _csrf: 'x' }));
      const status = await within(post.status, 3000);
      post.close();
      assert.notEqual(status, 0, `${path} answered while 45 MB were still to come`);
      assert.ok(status >= 300 && status < 500, `${path}: ${status}`);
    }
  });

  // Refused bodies are drained (read off the socket and dropped, so a browser still reads the
  // answer): short-lived garbage of a few tens of MiB whatever their number, never the bodies.
  it("twelve anonymous 45 MB multipart POSTs in parallel leave the server's memory flat", async () => {
    const pid = server.process.pid!;
    const start = rss(pid);
    let peak = start;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(pid));
    }, 10);
    const posts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        openPost(server.port, i % 2 ? '/console/sign-in' : '/console/o/acme/products/DW-1/sbom', 45 * MiB, multipartStart({})),
      ),
    );
    // The answers come while the bodies are still to be sent (a server waiting for them would
    // answer nothing here); then the rest is sent, and drained.
    const statuses = await Promise.all(posts.map((p) => within(p.status, 5000)));
    await Promise.all(posts.map((p) => p.sendRest()));
    clearInterval(sampler);
    for (const p of posts) p.close();
    assert.ok(
      statuses.every((s) => s >= 300 && s < 500),
      `refused: ${statuses}`,
    );
    assert.ok(
      posts.every((p) => p.answeredEarly()),
      'each was answered before its body was sent',
    );
    // Held, they would be 540 MB (the old code, which buffered each body twice: +490 MiB for six).
    // Drained, the chunks are garbage in Buffers outside V8's heap, collected once they have grown
    // by V8's external memory limit since the last collection: a slack that hardly grows with the
    // number of bodies, but Node 24 lets it run further and less evenly than Node 20 (twelve: 32–34
    // MiB on Node 20, 84–165 MiB in 14 runs on Node 24; twenty-four: 153–187 MiB on Node 24).
    // Half the bodies held would be 270 MiB.
    assert.ok(peak - start < 240 * MiB, `RSS grew by ${Math.round((peak - start) / MiB)} MiB`);
  });

  it("a signed-in analyst's upload is read only after its CSRF token: a wrong or missing one is refused early", async () => {
    await analyst.get('/console/o/acme/products/DW-1');
    const cookie = analyst.cookieHeader;
    for (const start of [
      multipartStart({ _csrf: 'forged' }),
      multipartStart({ note: analyst.csrf }),
      // The token must come before the file: a form puts it first.
      Buffer.concat([multipartStart({}), Buffer.alloc(1000, 0x20)]),
    ]) {
      const post = await openPost(server.port, '/console/o/acme/products/DW-1/sbom', 1.5 * MiB, start, cookie);
      const status = await within(post.status, 3000);
      post.close();
      assert.equal(status, 403);
    }
    // A route that takes no file refuses multipart from a signed-in person too, unread.
    const keys = await openPost(server.port, '/console/o/acme/keys', 45 * MiB, multipartStart({ _csrf: analyst.csrf }), cookie);
    assert.equal(await within(keys.status, 3000), 415);
    keys.close();
    // Larger than SBOM_MAX_BYTES allows: 413 before the body is read.
    const large = await openPost(
      server.port,
      '/console/o/acme/products/DW-1/sbom',
      60 * MiB,
      multipartStart({ _csrf: analyst.csrf }),
      cookie,
    );
    assert.equal(await within(large.status, 3000), 413);
    large.close();
  });

  it('the upload form works for an analyst, streamed under the same in-flight bound as the API', async () => {
    const page = await analyst.get('/console/o/acme/products/DW-1');
    assert.match(page.body, /enctype="multipart\/form-data"/);
    const upload = () => {
      const form = new FormData();
      form.append('_csrf', analyst.csrf);
      form.append('sbom', new Blob([DROPWIZARD], { type: 'application/json' }), 'bom.json');
      return analyst.request('/console/o/acme/products/DW-1/sbom', { method: 'POST', body: form });
    };

    // An API upload that trickles holds the whole bound (a chunked body reserves the maximum).
    const api = connect(server.port, '127.0.0.1');
    api.on('error', () => {});
    await new Promise((r) => api.once('connect', r));
    api.write(
      `POST /api/v1/external/products/DW-1/sbom HTTP/1.1\r\nHost: 127.0.0.1\r\nX-CRA-API-Key: ${apiKey}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n',
    );
    await new Promise((r) => setTimeout(r, 300));
    const busy = await upload();
    assert.equal(busy.status, 503, busy.body);
    assert.match(busy.body, /Too many SBOM uploads are being processed/);
    assert.equal(busy.headers.get('retry-after'), '5');

    api.destroy();
    await new Promise((r) => setTimeout(r, 300));
    const stored = await upload();
    assert.equal(stored.status, 200, stored.body);
    assert.match(stored.body, /Stored as revision 1 of release 1\.3\.15: 167 components \(cyclonedx 1\.2\)\./);
  });
});
