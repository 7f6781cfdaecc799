import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VERSION, withoutSecrets } from '../../src/http/banner.js';
import { runCli } from '../helpers/cli.js';
import { PASSWORD } from '../helpers/console.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { type RunningServer, startServer } from '../helpers/server.js';

// A first start as people see it (issue 28), from the real server process: the start banner with
// the one-time set-up link, request logs that never hold a one-time token, the link voided by a
// restart and gone once someone has set the instance up, and LOG_FORMAT.

const TOKEN = '[A-Za-z0-9_-]{43}';

type LogLine = Record<string, unknown> & { level: number; msg: string };
const jsonLines = (server: RunningServer): LogLine[] =>
  server
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
/**
 * The banner of the server's latest start in this output. It is written just after the server
 * listens, so /healthz (what startServer waits for) can answer before it reaches the pipe: wait.
 */
async function bannerOf(server: RunningServer): Promise<LogLine> {
  const banners = () => jsonLines(server).filter((l) => 'console' in l && 'api' in l);
  await server.waitForLog(() => banners().length > 0, 'the banner');
  assert.equal(banners().length, 1, server.logs());
  return banners()[0]!;
}

/** `METHOD url` of every request line (`request completed`) in the output so far. */
const requestLines = (server: RunningServer): string[] =>
  jsonLines(server).flatMap((l) => {
    const req = l.req as { method?: string; url?: string } | undefined;
    return l.msg === 'request completed' && req?.url ? [`${req.method} ${req.url}`] : [];
  });

/**
 * Waits until the output holds at least `count` request lines of each `METHOD url`: a request's
 * line is written once it is answered, and may reach the pipe after its client read the answer.
 */
function requestsLogged(server: RunningServer, wanted: Record<string, number>): Promise<string> {
  const holds = () => {
    const lines = requestLines(server);
    return Object.entries(wanted).every(([line, count]) => lines.filter((l) => l === line).length >= count);
  };
  return server.waitForLog(holds, `the request lines ${JSON.stringify(wanted)}`);
}

/** Fills the set-up form over plain HTTP, as a browser without JavaScript would. */
async function claimOverHttp(url: string, email: string): Promise<Response> {
  const page = await fetch(url);
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  const body = new URLSearchParams({
    _csrf: csrf,
    org_name: 'Acme Devices GmbH',
    org_slug: 'acme',
    email,
    password: PASSWORD,
    confirm: PASSWORD,
  });
  return fetch(url, { method: 'POST', body, headers: { cookie }, redirect: 'manual' });
}

describe('a first start, as the server process prints it', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  let server: RunningServer | undefined;

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url, CONSOLE_SECRET: 'x'.repeat(32) };
  });
  after(async () => {
    await server?.stop();
    await drop?.();
  });

  it('logs a banner with where everything answers and the one-time set-up link, at info level', async () => {
    server = await startServer(env);
    const banner = await bannerOf(server);
    assert.equal(banner.level, 30, 'the set-up link is not a warning');
    assert.deepEqual(
      { ...banner, level: undefined, time: undefined, pid: undefined, hostname: undefined, setup_url: undefined },
      {
        level: undefined,
        time: undefined,
        pid: undefined,
        hostname: undefined,
        api: `${server.url}/api/v1/external`,
        swagger: `${server.url}/swagger`,
        console: `${server.url}/console`,
        database: withoutSecrets(env.DATABASE_URL!),
        rate_limit: 'memory',
        version: VERSION,
        setup_url: undefined,
        msg: 'ready; first run: open setup_url to create the first organisation and its owner',
      },
    );
    assert.match(String(banner.setup_url), new RegExp(`^${server.url}/console/setup/${TOKEN}$`));
    assert.deepEqual(
      jsonLines(server).filter((l) => l.level >= 40),
      [],
    );
    const consolePage = await (await fetch(`${server.url}/console`)).text();
    assert.match(consolePage, /This instance is not set up yet: use the link printed where the server started\./);
    const setupPage = await fetch(String(banner.setup_url));
    assert.equal(setupPage.status, 200);
    assert.match(await setupPage.text(), /Set up this instance/);
  });

  it('keeps the tokens of set-up and invitation links out of the request log', async () => {
    const setupUrl = String((await bannerOf(server!)).setup_url);
    const setupToken = setupUrl.split('/').pop()!;
    await runCli(['org', 'create', 'logs'], env);
    const invite = await runCli(['user', 'invite', '--org', 'logs', '--email', 'ana@example.com', '--role', 'owner', '--json'], {
      ...env,
      PUBLIC_URL: server!.url,
    });
    const inviteUrl = invite.json().url as string;
    const inviteToken = inviteUrl.split('/').pop()!;
    assert.equal((await fetch(inviteUrl)).status, 200);
    await fetch(`${server!.url}/console/sign-in?next=${encodeURIComponent(new URL(inviteUrl).pathname)}`);
    await fetch(setupUrl);
    await fetch(setupUrl, { method: 'POST', body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await fetch(setupUrl, { method: 'PUT' });

    // Every request's line, redacted (the set-up page was also asked once by the test before).
    const logs = await requestsLogged(server!, {
      'GET /console/invite/[redacted]': 1,
      'GET /console/sign-in?next=%2Fconsole%2Finvite%2F[redacted]': 1,
      'GET /console/setup/[redacted]': 2,
      'POST /console/setup/[redacted]': 1,
      'PUT /console/setup/[redacted]': 1,
    });
    assert.equal(logs.split(setupToken).length - 1, 1, 'the set-up token is in the banner only');
    assert.equal(logs.includes(inviteToken), false, 'the invitation token is nowhere');
  });

  it('voids the link at a restart, prints a new one, and none once the instance is set up', async () => {
    const old = String((await bannerOf(server!)).setup_url);
    assert.equal(await server!.stop(), 0);
    server = await startServer(env);
    const fresh = String((await bannerOf(server)).setup_url);
    assert.match(fresh, new RegExp(`/console/setup/${TOKEN}$`));
    assert.notEqual(new URL(fresh).pathname, new URL(old).pathname);
    const refused = await fetch(`${server.url}${new URL(old).pathname}`);
    assert.equal(refused.status, 404, 'a link from before the restart');
    assert.match(await refused.text(), /printed before the server last started/);

    const claimed = await claimOverHttp(fresh, 'owner@example.com');
    assert.equal(claimed.status, 303);
    assert.equal(claimed.headers.get('location'), '/console/enrol');
    const again = await fetch(fresh);
    assert.equal(again.status, 409, 'the link works once');
    assert.match(await again.text(), /already set up/);
    const setupLink = await runCli(['setup-link'], env);
    assert.equal(setupLink.code, 1);
    assert.match(setupLink.stderr, /already set up/);

    assert.equal(await server.stop(), 0);
    server = await startServer(env);
    const banner = await bannerOf(server);
    assert.equal('setup_url' in banner, false);
    assert.equal(banner.msg, 'ready');
    assert.equal(server.logs().includes('/console/setup/'), false);
    const home = await fetch(`${server.url}/console`, { redirect: 'manual' });
    assert.equal(home.headers.get('location'), '/console/sign-in?next=%2Fconsole', 'the console, no longer the set-up message');
  });
});

describe('LOG_FORMAT', () => {
  it('pretty: readable lines and the banner as a block, even on a pipe', async () => {
    const db = await createEmptyDatabaseUrl();
    const server = await startServer({ DATABASE_URL: db.url, CONSOLE_SECRET: 'x'.repeat(32), LOG_FORMAT: 'pretty' });
    try {
      // The banner follows the listen: wait for its last line to reach the pipe.
      const logs = await server.waitForLog(/npx cra-admin setup-link/);
      assert.match(logs, /INFO: CRA compliance API \S+ is ready\n/);
      assert.ok(logs.includes(`\n  Console     ${server.url}/console\n`), logs);
      assert.match(logs, new RegExp(`\\n {4}${server.url}/console/setup/${TOKEN}\\n`));
      assert.match(logs, /npx cra-admin setup-link/);
      assert.equal(
        logs.split('\n').some((l) => l.startsWith('{')),
        false,
        'no JSON line',
      );
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it('anything but json or pretty stops the start with a clear message', async () => {
    await assert.rejects(
      startServer({ DATABASE_URL: 'sqlite::memory:', LOG_FORMAT: 'xml' }),
      /LOG_FORMAT must be json or pretty, got "xml"/,
    );
  });
});
