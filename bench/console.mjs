// The console's server time: sign-in and each page, against the real server process over HTTP
// with a real session cookie, on an organisation with 1,000 products and 1,000 open cases.
//
//   npm run build && node bench/console.mjs [--rounds 3] [--requests 100] [--sign-ins 20]
//   npm run bench -- --only console
//
// Seeding goes through the same services as the API and the CLI (dist/services.js): 999
// catalogue products inserted in one transaction plus one product with two SBOM revisions of
// 1,000 components (uploaded through the API), 1,050 signals received of which 1,000 opened as
// cases, 40 console users invited and enrolled. The server then runs on its own; this process
// signs in over HTTP (password and the authenticator's current code) and requests each page
// one at a time on one kept-alive connection, so each latency is the server's time for that
// page plus a loopback round trip, with nothing queued in front of it. Each row is the median
// of its rounds (p50 and p99 of the round's requests), with the range of the rounds' p99.
import { request as httpRequest, Agent } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stealMeter } from './cpu-steal.mjs';
import { benchComponents, benchDatabase, benchDocument, ROOT, startServer } from './sbom-ingest.mjs';
import { seedCatalogue } from './seed-catalogue.mjs';
import { median, percentile, round1 } from './stats.mjs';

const CONSOLE_SECRET = 'bench-console-secret';
const PASSWORD = 'bench-orbit-47-lantern';
const ORG = 'bench';
const PRODUCTS = 1_000;
const CASES = 1_000;
const INCOMING = 50;
const USERS = 40;
const COMPONENTS = 1_000;
/** The goal of the issue: every page under 50 ms at the 99th percentile. */
export const PAGE_GOAL_P99_MS = 50;

const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

/** Products, cases, signals, users and a key, through the services; the server is not running yet. */
async function seed(databaseUrl, log) {
  const [{ openDatabase, migrateToLatest }, { createServices }, { totpCode }] = await Promise.all([
    dist('db/index.js'),
    dist('services.js'),
    dist('users/totp.js'),
  ]);
  const database = openDatabase(databaseUrl);
  try {
    await migrateToLatest(database);
    const services = createServices({ database, console: { secret: CONSOLE_SECRET } });
    const org = await services.orgs.createOrg({ slug: ORG, name: 'Bench Devices' });
    await seedCatalogue(databaseUrl, org.id, PRODUCTS - 1);
    await services.products.addProduct(ORG, 'GW-1', { name: 'Bench gateway' });
    const { secret: key } = await services.keys.createKey({ org: ORG, name: 'sbom', scopes: ['products:write'] });
    await services.keys.createKey({ org: ORG, name: 'erp', scopes: ['products:read', 'compliance:read'] });

    const started = performance.now();
    for (let i = 1; i <= CASES + INCOMING; i++) {
      await services.incidents.receiveSignal(
        { orgId: org.id, source: 'bench' },
        {
          title: `Bench report ${i}`,
          description: `Possible exploitation of the update service, report ${i}.`,
          sku: `BIG-${String(i % (PRODUCTS - 1)).padStart(5, '0')}`,
          cve: `CVE-2026-${String(10_000 + i)}`,
        },
      );
      if (i <= CASES)
        await services.cases.openCase(ORG, { signalNumber: i, notifiable: i % 2 === 0, notifiableReason: i % 2 ? 'bench' : undefined });
    }
    log(`  seeded ${CASES} cases and ${INCOMING} incoming signals in ${Math.round((performance.now() - started) / 1000)} s`);

    const users = [];
    for (let i = 0; i < USERS; i++) users.push(await enrolUser(services, ORG, `bench-${i}@example.com`, i === 0 ? 'owner' : 'analyst'));
    return { key, users, totpCode };
  } finally {
    await database.close();
  }
}

/**
 * A console user of `org` (invited, accepted with PASSWORD, authenticator enrolled) through the
 * services, which must have been created with a console secret; what signIns needs of it.
 */
export async function enrolUser(services, org, email, role) {
  const { totpCode } = await dist('users/totp.js');
  const invitation = await services.users.invite({ org, email, role, actor: 'cli' });
  const accepted = await services.users.acceptAsNewUser(invitation.token, PASSWORD);
  const signedIn = await services.users.resolveSession(accepted.token);
  const secret = services.users.enrolmentSecret(signedIn.user);
  const now = new Date();
  await services.users.completeEnrolment(signedIn.user, signedIn.session.idDigest, totpCode(secret, now));
  return { email, secret, last: Math.floor(now.getTime() / 30_000) };
}

/**
 * A signed-in console session on the server at `url` for one of `users` (enrolUser): the cookie
 * header its page requests carry.
 */
export async function consoleSession(agent, url, users) {
  const { totpCode } = await dist('users/totp.js');
  const signInPage = await send(agent, `${url}/console/sign-in`);
  const csrf = { cookie: cookieOf(signInPage.headers, 'cra_csrf'), token: /name="_csrf" value="([^"]+)"/.exec(signInPage.body)[1] };
  const { session } = await signIns(agent, url, 1, users, totpCode, csrf);
  return { cookie: `cra_session=${session}; cra_csrf=${csrf.cookie}`, csrf, totpCode };
}

/** One request on the kept-alive connection; resolves with status, headers, body and milliseconds. */
export function send(agent, url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(url, { method, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString(), ms: performance.now() - started }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const cookieOf = (headers, name) =>
  (headers['set-cookie'] ?? []).map((c) => new RegExp(`^${name}=([^;]+)`).exec(c)?.[1]).find((v) => v !== undefined);

/** Signs in users one after another, each with a TOTP step it has not used yet; returns latencies and the last cookie. */
async function signIns(agent, url, count, users, totpCode, csrf) {
  const times = [];
  let session = null;
  for (let n = 0; n < count; n++) {
    let user;
    let step;
    for (;;) {
      const now = Math.floor(Date.now() / 30_000);
      // The current step, or the next one (the server accepts one step of drift either way).
      user = users.find((u) => u.last < now + 1);
      if (user) {
        step = Math.max(user.last + 1, now);
        break;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    user.last = step;
    const form = new URLSearchParams({
      _csrf: csrf.token,
      email: user.email,
      password: PASSWORD,
      code: totpCode(user.secret, new Date(step * 30_000 + 1_000)),
      next: '/console',
    }).toString();
    const r = await send(agent, `${url}/console/sign-in`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `cra_csrf=${csrf.cookie}`,
        'content-length': Buffer.byteLength(form),
      },
      body: form,
    });
    session = cookieOf(r.headers, 'cra_session');
    if (r.status !== 303 || !session) throw new Error(`sign-in of ${user.email} answered ${r.status}: ${r.body.slice(0, 300)}`);
    times.push(r.ms);
  }
  return { times, session };
}

export async function runConsoleBench({
  rounds = 3,
  requests = 100,
  signInsPerRound = 20,
  databaseUrl = process.env.DATABASE_URL,
  log = console.log,
} = {}) {
  const db = await benchDatabase(databaseUrl);
  log(`Console: ${PRODUCTS} products, ${CASES} open cases, ${INCOMING} signals awaiting triage (${db.backend})`);
  const { key, users, totpCode } = await seed(db.url, log);
  const { child, url } = await startServer({ DATABASE_URL: db.url, CONSOLE_SECRET, RATE_LIMIT_PER_MINUTE: '1000000' });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // Two revisions of GW-1's release (1 % of the components in a new version), through the API.
    const components = benchComponents(COMPONENTS);
    for (let revision = 1; revision <= 2; revision++) {
      if (revision === 2)
        for (let i = 0; i < COMPONENTS; i += 100) {
          const c = components[i];
          components[i] = { ...c, version: `${c.version}-fix`, purl: c.purl.replace('?', '-fix?'), 'bom-ref': `${c['bom-ref']}-fix` };
        }
      const res = await fetch(`${url}/api/v1/external/products/GW-1/sbom`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-cra-api-key': key },
        body: benchDocument(components),
      });
      if (res.status !== 201) throw new Error(`SBOM upload answered ${res.status}: ${await res.text()}`);
    }

    const { cookie, csrf } = await consoleSession(agent, url, users);
    const o = `${url}/console/o/${ORG}`;
    const pages = [
      ['Today', `${o}/today`],
      ['Today clocks (htmx)', `${o}/today/clocks`],
      ['Signals', `${o}/signals`],
      ['Cases', `${o}/cases`],
      ['Case', `${o}/cases/500`],
      ['Products', `${o}/products`],
      ['Product', `${o}/products/GW-1`],
      ['SBOM revision', `${o}/products/GW-1/releases/1.0.0/revisions/2`],
      ['SBOM diff', `${o}/products/GW-1/releases/1.0.0/diff?from=1&to=2`],
      ['Component search', `${o}/components?name=component-7`],
      ['API keys', `${o}/keys`],
      ['Activity', `${o}/activity`],
      ['Members', `${o}/members`],
      ['Your account', `${url}/console/account`],
    ];
    for (const [name, page] of pages) {
      const r = await send(agent, page, { headers: { cookie } });
      if (r.status !== 200) throw new Error(`${name}: ${page} answered ${r.status}: ${r.body.slice(0, 300)}`);
    }
    // Let the server finish its start-up work (SBOM schema compilation runs after listen).
    await new Promise((r) => setTimeout(r, 3000));

    const measured = new Map();
    const record = (name, times, bytes, steal) =>
      measured.set(name, [
        ...(measured.get(name) ?? []),
        { p50: percentile(times, 50), p99: percentile(times, 99), max: Math.max(...times), bytes, steal },
      ]);
    for (let round = 1; round <= rounds; round++) {
      let steal = stealMeter();
      const signIn = await signIns(agent, url, signInsPerRound, users, totpCode, csrf);
      record('sign-in (POST, argon2id + TOTP)', signIn.times, null, steal.stop());
      for (const [name, page] of pages) {
        for (let i = 0; i < 10; i++) await send(agent, page, { headers: { cookie } }); // warm-up
        steal = stealMeter();
        const times = [];
        let bytes = 0;
        for (let i = 0; i < requests; i++) {
          const r = await send(agent, page, { headers: { cookie } });
          if (r.status !== 200) throw new Error(`${name} answered ${r.status}`);
          bytes = Buffer.byteLength(r.body);
          times.push(r.ms);
        }
        record(name, times, bytes, steal.stop());
      }
      const rows = [...measured].map(([name, list]) => `${name} p99 ${round1(list[list.length - 1].p99)} ms`);
      log(`  round ${round}: ${rows.join(', ')}`);
    }
    return [...measured].map(([name, list]) => {
      const p99s = list.map((r) => round1(r.p99));
      const isPage = !name.startsWith('sign-in');
      const p99 = round1(median(list.map((r) => r.p99)));
      return {
        name,
        rounds: list.length,
        samples_per_round: isPage ? requests : signInsPerRound,
        p50_ms: round1(median(list.map((r) => r.p50))),
        p99_ms: p99,
        p99_ms_range: [Math.min(...p99s), Math.max(...p99s)],
        max_ms: round1(Math.max(...list.map((r) => r.max))),
        response_bytes: isPage ? median(list.map((r) => r.bytes)) : null,
        cpu_steal_pct: list.every((r) => r.steal !== null) ? median(list.map((r) => r.steal)) : null,
        goal: isPage ? `p99 < ${PAGE_GOAL_P99_MS} ms` : '',
        met: isPage ? p99 < PAGE_GOAL_P99_MS : null,
      };
    });
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await db.drop();
  }
}

export function printConsoleRows(rows, log = console.log) {
  const pad = (v, n) => String(v).padEnd(n);
  const span = ([lo, hi]) => (lo === hi ? '' : ` (${lo}–${hi})`);
  log(
    `\n${pad('console', 34)}${pad('p50 ms', 9)}${pad('p99 ms (range)', 20)}${pad('max ms', 9)}${pad('bytes', 10)}${pad('steal %', 9)}goal`,
  );
  for (const r of rows) {
    log(
      `${pad(r.name, 34)}${pad(r.p50_ms, 9)}${pad(r.p99_ms + span(r.p99_ms_range), 20)}${pad(r.max_ms, 9)}${pad(r.response_bytes ?? '', 10)}${pad(r.cpu_steal_pct ?? '?', 9)}${r.goal ? `${r.goal} ${r.met ? 'met' : 'MISSED'}` : ''}`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  runConsoleBench({ rounds: arg('rounds'), requests: arg('requests'), signInsPerRound: arg('sign-ins') })
    .then((rows) => printConsoleRows(rows))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
