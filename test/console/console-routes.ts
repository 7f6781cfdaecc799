import type { Role } from '../../src/db/schema.js';

// Who may reach every console route, written down apart from the code that declares it
// (src/console/permissions.ts): the roles of console.md's page table, route by route. The
// permission test checks the app against this, so a route added without an entry here fails,
// and so does a route whose declaration gives it to a role this table does not.

export type Expected =
  | { access: 'public' }
  | { access: 'signed-in' }
  /** A page of one organisation: the roles admitted; any other is refused with `refusal`. */
  | { access: 'org'; roles: readonly Role[]; refusal: 403 | 404 };

const PUBLIC: Expected = { access: 'public' };
const PERSON: Expected = { access: 'signed-in' };
const org = (roles: Role[], refusal: 403 | 404 = 403): Expected => ({ access: 'org', roles, refusal });
/** Reading: every member, viewers too. */
const MEMBERS = org(['owner', 'admin', 'analyst', 'viewer']);
/** Keys, products, organisation settings, webhooks, the Feeds page. */
const OWNER_ADMIN = org(['owner', 'admin']);
/** Triage, cases and reports. */
const CASES = org(['owner', 'analyst']);
/** Analyses of findings and SBOM uploads. */
const ANALYSTS = org(['owner', 'admin', 'analyst']);
/** The reporter's identity, attachments and answers: a viewer is told nothing is there. */
const REPORTER = org(['owner', 'admin', 'analyst'], 404);
const OWNER = org(['owner']);

const O = '/console/o/:org';

export const CONSOLE_ROUTES: Record<string, Expected> = {
  'GET /console': PERSON,
  'GET /console/': PERSON,
  'GET /console/account': PERSON,
  'POST /console/account/password': PERSON,
  'GET /console/assets/htmx.min.js': PUBLIC,
  'GET /console/assets/console.css': PUBLIC,
  'GET /console/assets/console.js': PUBLIC,
  'GET /console/sign-in': PUBLIC,
  'POST /console/sign-in': PUBLIC,
  'POST /console/sign-out': PUBLIC,
  'GET /console/setup/:token': PUBLIC,
  'POST /console/setup/:token': PUBLIC,
  'GET /console/invite/:token': PUBLIC,
  'POST /console/invite/:token': PUBLIC,
  'GET /console/enrol': PUBLIC,
  'POST /console/enrol': PUBLIC,

  [`GET ${O}/today`]: MEMBERS,
  [`GET ${O}/today/clocks`]: MEMBERS,

  [`GET ${O}/signals`]: MEMBERS,
  [`POST ${O}/signals/open-case`]: CASES,
  [`POST ${O}/signals/dismiss`]: CASES,
  [`POST ${O}/signals/merge`]: CASES,
  [`POST ${O}/signals/attribute`]: CASES,
  [`GET ${O}/signals/:number/conversation`]: MEMBERS,
  [`POST ${O}/signals/:number/conversation/reporter`]: REPORTER,
  [`POST ${O}/signals/:number/conversation/messages`]: REPORTER,
  [`POST ${O}/signals/:number/conversation/revoke`]: REPORTER,
  [`GET ${O}/signals/:number/attachments/:id`]: REPORTER,

  [`GET ${O}/cases`]: MEMBERS,
  [`GET ${O}/cases/:number`]: MEMBERS,
  [`GET ${O}/cases/:number/deadlines`]: MEMBERS,
  [`GET ${O}/cases/:number/advisory.json`]: MEMBERS,
  [`GET ${O}/cases/:number/export.json`]: MEMBERS,
  [`GET ${O}/cases/:number/reports/:stage`]: MEMBERS,
  [`GET ${O}/cases/:number/reports/:stage/text`]: MEMBERS,
  [`POST ${O}/cases/:number/sent`]: CASES,
  [`POST ${O}/cases/:number/close`]: CASES,
  [`POST ${O}/cases/:number/fix`]: CASES,
  [`POST ${O}/cases/:number/intermediate`]: CASES,
  [`POST ${O}/cases/:number/notes`]: CASES,
  [`POST ${O}/cases/:number/advisory-published`]: CASES,
  [`POST ${O}/cases/:number/reports/:stage`]: CASES,
  [`POST ${O}/cases/:number/reports/:stage/file`]: CASES,

  [`GET ${O}/products`]: MEMBERS,
  [`GET ${O}/products/new`]: OWNER_ADMIN,
  [`POST ${O}/products`]: OWNER_ADMIN,
  [`GET ${O}/products/:sku`]: MEMBERS,
  [`POST ${O}/products/:sku`]: OWNER_ADMIN,
  [`GET ${O}/products/:sku/edit`]: OWNER_ADMIN,
  [`POST ${O}/products/:sku/archive`]: OWNER_ADMIN,
  [`POST ${O}/products/:sku/sbom`]: ANALYSTS,
  [`GET ${O}/products/:sku/releases/:version/revisions/:revision`]: MEMBERS,
  [`GET ${O}/products/:sku/releases/:version/revisions/:revision/conformance`]: MEMBERS,
  [`GET ${O}/products/:sku/releases/:version/revisions/:revision/document`]: MEMBERS,
  [`GET ${O}/products/:sku/releases/:version/diff`]: MEMBERS,
  [`GET ${O}/products/:sku/releases/:version/vex/:format`]: MEMBERS,
  [`GET ${O}/components`]: MEMBERS,

  [`GET ${O}/components/candidates`]: MEMBERS,
  [`POST ${O}/components/cpe-mappings`]: ANALYSTS,
  [`POST ${O}/components/cpe-mappings/remove`]: ANALYSTS,
  [`GET ${O}/vulnerabilities`]: MEMBERS,
  [`GET ${O}/vulnerabilities/:id`]: MEMBERS,
  [`POST ${O}/vulnerabilities/:id/analysis`]: ANALYSTS,
  [`GET ${O}/feeds`]: OWNER_ADMIN,

  [`GET ${O}/keys`]: MEMBERS,
  [`POST ${O}/keys`]: OWNER_ADMIN,
  [`POST ${O}/keys/rotate`]: OWNER_ADMIN,
  [`POST ${O}/keys/revoke`]: OWNER_ADMIN,

  [`GET ${O}/webhooks`]: MEMBERS,
  [`POST ${O}/webhooks`]: OWNER_ADMIN,
  [`GET ${O}/webhooks/:id`]: MEMBERS,
  [`POST ${O}/webhooks/:id/rotate`]: OWNER_ADMIN,
  [`POST ${O}/webhooks/:id/replay`]: OWNER_ADMIN,
  [`POST ${O}/webhooks/:id/disable`]: OWNER_ADMIN,
  [`POST ${O}/webhooks/:id/enable`]: OWNER_ADMIN,
  [`POST ${O}/webhooks/:id/delete`]: OWNER_ADMIN,

  [`GET ${O}/activity`]: MEMBERS,
  [`GET ${O}/activity/verify`]: MEMBERS,
  [`GET ${O}/members`]: MEMBERS,
  [`POST ${O}/members/invite`]: OWNER,
  [`POST ${O}/members/role`]: OWNER,
  [`POST ${O}/members/remove`]: OWNER,
  [`GET ${O}/organisation`]: MEMBERS,
  [`POST ${O}/organisation`]: OWNER_ADMIN,
  [`POST ${O}/organisation/sbom-policy`]: OWNER_ADMIN,
  [`GET ${O}/disclosure`]: MEMBERS,
  [`POST ${O}/disclosure`]: OWNER_ADMIN,
};

/** The public disclosure pages (disclosure.md): every one anonymous. */
export const DISCLOSURE_ROUTES = [
  'GET /disclose/:slug',
  'GET /disclose/:slug/security.txt',
  'GET /disclose/:slug/report',
  'POST /disclose/:slug/report',
  'GET /disclose/:slug/follow/:token',
  'POST /disclose/:slug/follow/:token',
];
