import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Role } from '../../src/db/schema.js';
import { ROLES } from '../../src/users/users.service.js';
import { type Harness, useHarness } from '../helpers/app.js';
import { ConsoleAgent, PASSWORD, signedInAgent } from '../helpers/console.js';
import { one, parseHtml, text } from '../helpers/html.js';
import { type AppRoute, routesOf } from '../helpers/routes.js';
import { CONSOLE_ROUTES, DISCLOSURE_ROUTES } from './console-routes.js';

// Every route of the console, read from the app itself, against console-routes.ts (who may
// reach it, written down apart from the declarations): each role is refused where its role has
// no permission and admitted where it has, a visitor without a session is sent to sign in, one
// still enrolling to the enrolment, a member of another organisation gets 404. The public
// disclosure pages are each anonymous.

const key = (route: AppRoute) => `${route.method} ${route.url}`;
const consoleRoutes = (h: Harness) => routesOf(h.app, '/console');

/** One organisation with a member of each role, and a disclosure report with an attachment (the reporter's routes need a real one). */
async function organisation(h: Harness, slug: string) {
  await h.orgs.createOrg({ slug, name: `Org ${slug}` });
  const agents = {} as Record<Role, ConsoleAgent>;
  for (const role of ROLES) agents[role] = (await signedInAgent(h, slug, `${role}@${slug}.example`, role)).agent;
  await h.disclosure.configure(slug, { enabled: true }, 'cli');
  const report = await h.disclosure.receiveReport(slug, {
    productId: null,
    title: null,
    description: 'A private key in the firmware.',
    cve: null,
    affectedVersions: null,
    howFound: null,
    reporterName: 'Ada',
    reporterContact: 'ada@example.com',
    credit: null,
    attachments: [{ name: 'poc.txt', bytes: Buffer.from('proof') }],
  });
  const number = String(report!.incidentNumber);
  const [attachment] = (await h.disclosure.conversation(slug, report!.incidentNumber)).attachments;
  const params: Record<string, string> = {
    org: slug,
    number,
    id: attachment!.id,
    sku: 'NO-SUCH-SKU',
    version: '1.0',
    revision: '1',
    format: 'cyclonedx',
    stage: 'early-warning',
    token: 'no-such-token',
  };
  /** The route's address with a value for each of its parameters; a new parameter must be given one here. */
  const url = (route: AppRoute) =>
    route.url.replace(/:(\w+)/g, (_, name: string) => {
      if (!(name in params)) throw new Error(`no value for :${name} of ${key(route)}: add one to the permission test`);
      return encodeURIComponent(params[name]!);
    });
  return { agents, url };
}

/** A GET, or a POST with an empty form and the session's CSRF token. */
async function send(agent: ConsoleAgent, route: AppRoute, url: string): Promise<LightMyRequestResponse> {
  return route.method === 'POST' ? agent.post(url, {}) : agent.get(url);
}

/** The console's refusal: the "Not allowed" page (403), or the "Not found" page (404) where a role is told nothing is there. */
function refused(response: LightMyRequestResponse, status: 403 | 404): boolean {
  if (response.statusCode !== status) return false;
  return text(one(parseHtml(response.body), 'h1')) === (status === 403 ? 'Not allowed' : 'Not found');
}

const toSignIn = (response: LightMyRequestResponse) =>
  response.statusCode === 303 && String(response.headers.location).startsWith('/console/sign-in?next=');

describe('console routes: who may reach each', () => {
  const harness = useHarness();

  it('names every console route of the app in the table of who may reach it, and no route the app lacks', () => {
    const h = harness();
    const routes = consoleRoutes(h).map(key);
    assert.ok(routes.length > 70, `read ${routes.length} routes`);
    assert.deepEqual(
      routes.filter((r) => !(r in CONSOLE_ROUTES)),
      [],
      'routes missing from test/console/console-routes.ts: add each with who may reach it',
    );
    assert.deepEqual(
      Object.keys(CONSOLE_ROUTES).filter((r) => !routes.includes(r)),
      [],
      'entries that are no route',
    );
  });

  it('refuses every organisation route to each role without its permission, and admits each role with it', async () => {
    const h = harness();
    const { agents, url } = await organisation(h, 'roles');
    for (const agent of Object.values(agents)) await agent.get('/console/account');
    const wrong: string[] = [];
    for (const route of consoleRoutes(h)) {
      const expected = CONSOLE_ROUTES[key(route)];
      if (expected?.access !== 'org') continue;
      // The roles without the permission first: an admitted request may change what the next one finds.
      const roles = [...ROLES].sort((a, b) => Number(expected.roles.includes(a)) - Number(expected.roles.includes(b)));
      for (const role of roles) {
        const response = await send(agents[role], route, url(route));
        const admit = expected.roles.includes(role);
        if (refused(response, expected.refusal) === admit)
          wrong.push(
            `${key(route)} as ${role}: ${response.statusCode}, should be ${admit ? 'admitted' : `refused with ${expected.refusal}`}`,
          );
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('sends a visitor without a session to sign in and one still enrolling to the enrolment; a member of another organisation gets 404', async () => {
    const h = harness();
    const { agents, url } = await organisation(h, 'visit');
    await h.orgs.createOrg({ slug: 'elsewhere' });
    const stranger = (await signedInAgent(h, 'elsewhere', 'owner@elsewhere.example', 'owner')).agent;
    await stranger.get('/console/account');
    const anonymous = new ConsoleAgent(h.app);
    await anonymous.get('/console/sign-in');
    const invitation = await h.users.invite({ org: 'visit', email: 'new@visit.example', role: 'owner', actor: 'cli' });
    const enrolling = new ConsoleAgent(h.app);
    await enrolling.get(`/console/invite/${invitation.token}`);
    await enrolling.post(`/console/invite/${invitation.token}`, { password: PASSWORD, confirm: PASSWORD });
    await enrolling.get('/console/enrol');

    const wrong: string[] = [];
    for (const route of consoleRoutes(h)) {
      const expected = CONSOLE_ROUTES[key(route)];
      if (!expected) continue;
      const address = url(route);
      // Signing out renews the CSRF secret: a fresh token for each anonymous form.
      if (route.method === 'POST') await anonymous.get('/console/sign-in');
      const anon = await send(anonymous, route, address);
      if (expected.access === 'public') {
        if (toSignIn(anon) || anon.statusCode === 403)
          wrong.push(`${key(route)} anonymous: ${anon.statusCode} ${anon.headers.location ?? ''}`);
        continue;
      }
      if (!toSignIn(anon)) wrong.push(`${key(route)} anonymous: ${anon.statusCode}, not sent to sign in`);
      const half = await send(enrolling, route, address);
      if (half.statusCode !== 303 || half.headers.location !== '/console/enrol')
        wrong.push(`${key(route)} while enrolling: ${half.statusCode}, not sent to the enrolment`);
      if (expected.access === 'signed-in') {
        const viewer = await send(agents.viewer, route, address);
        if (toSignIn(viewer) || viewer.statusCode >= 500) wrong.push(`${key(route)} as a viewer: ${viewer.statusCode}`);
        continue;
      }
      if (!refused(await send(stranger, route, address), 404)) wrong.push(`${key(route)} from another organisation: not 404`);
    }
    assert.deepEqual(wrong, []);
  });

  it('the public disclosure pages are each anonymous: every route is in the list, and each page answers a visitor without a session', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'open' });
    await h.disclosure.configure('open', { enabled: true }, 'cli');
    const routes = routesOf(h.app, '/disclose').map(key);
    assert.deepEqual([...routes].sort(), [...DISCLOSURE_ROUTES].sort());
    for (const route of routesOf(h.app, '/disclose').filter((r) => r.method === 'GET' && !r.url.includes(':token'))) {
      const response = await h.app.inject({ method: 'GET', url: route.url.replace(':slug', 'open') });
      assert.equal(response.statusCode, 200, key(route));
    }
  });
});
