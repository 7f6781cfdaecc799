import type { StageName } from '../../src/cases/stage-rules.js';
import type { Harness } from '../helpers/app.js';
import { type ConsoleAgent, signedInAgent } from '../helpers/console.js';
import { formFields, formFor, one, parseHtml, tableRecords } from '../helpers/html.js';
import { postIncident } from '../helpers/incidents.js';

// Factories for the Article 14 tests: each test builds the organisation, product, signal and case
// it needs, and brings a case to a stage through the services (the forms of each stage are tested
// on their own), so that any test runs alone.

/** Where every Article 14 test starts: the harness's clock is shared by its tests, so each sets it. */
export const START = new Date('2026-11-22T10:00:00.000Z');
/** Two days before START: the early warning is overdue, the notification still running. */
export const AWARE_AT = new Date('2026-11-20T10:00:00.000Z');

export const DETAILS = {
  legalName: 'Art GmbH',
  postalAddress: 'Hauptstr. 1, Berlin',
  contactEmail: 'psirt@art.example',
  memberState: 'DE',
};

export interface RouterOrganisation {
  /** An analyst of the organisation, signed in. */
  agent: ConsoleAgent;
  /** /console/o/<slug> */
  base: string;
  email: string;
}

/**
 * An organisation with its details (unless `details: false`), a router made available in DE and
 * FR, and one signal about it (number 1); an analyst signed in. The clock is at START (and 30 s
 * on, as signing in takes).
 */
export async function routerOrganisation(h: Harness, slug: string, options: { details?: boolean } = {}): Promise<RouterOrganisation> {
  h.clock.current = new Date(START);
  const tenant = await h.tenant(slug, ['incidents:write']);
  if (options.details !== false) await h.orgs.setDetails(slug, DETAILS);
  await h.products.addProduct(slug, 'RTR-9', { name: 'Router 9', firmwareVersion: '2.1.0', markets: ['DE', 'FR'] });
  const posted = await postIncident(h, tenant.key, {
    sku: 'RTR-9',
    title: 'RCE in the web UI',
    description: 'Crafted request runs commands.',
    cve: 'CVE-2026-1111',
  });
  if (posted.statusCode !== 201) throw new Error(`signal: ${posted.statusCode} ${posted.body}`);
  const email = `ana@${slug}.example`;
  const { agent } = await signedInAgent(h, slug, email, 'analyst');
  return { agent, base: `/console/o/${slug}`, email };
}

/** Case 1: the signal opened as a notifiable actively exploited vulnerability, aware at AWARE_AT. */
export async function openVulnerability(h: Harness, slug: string): Promise<void> {
  await h.cases.openCase(slug, { signalNumber: 1, notifiable: true, kind: 'vulnerability', awareAt: AWARE_AT });
}

/** What each stage needs beyond what the platform fills in (as an analyst would type it). */
const TYPED: Record<StageName, Record<string, string>> = {
  early_warning: { summary: 'Crafted request runs commands.', product_name: 'Router 9' },
  notification: {
    nature: 'Command injection in the CGI handler',
    corrective_measures: 'Patched build in QA',
    user_measures: 'Disable remote administration',
    tlp: 'AMBER',
  },
  intermediate: { status_update: 'Fix rolling out' },
  final: { description: 'Command injection', severity: 'Critical', impact: 'Full device takeover' },
};

/** Fills in the stage's report of case 1 and files it in the SRP as `reference` (at `at`, else now). */
export async function fileStage(
  h: Harness,
  slug: string,
  stage: StageName,
  options: { reference: string; at?: Date; seq?: number },
): Promise<void> {
  const report = await h.reports.getReport(slug, 1, stage, options.seq);
  await h.reports.saveDraft(slug, 1, stage, { ...report.fields, ...TYPED[stage] }, report.seq);
  await h.reports.fileReport(slug, 1, stage, {
    reference: options.reference,
    at: options.at,
    filedBy: 'user:ana@example.com',
    seq: report.seq,
  });
}

/** The organisation's registry entries of `action`, newest first. */
export async function registry(h: Harness, slug: string, action: string) {
  return (await h.registry.recent(slug, { action, limit: 50 })).entries;
}

/** The stages table under `root` (a case page's stages, or their live fragment): report, due time with clock, filing, state. */
export const stages = (root: ParentNode) => tableRecords(one(root, 'table')).map((r) => [r.Report, r.Due, r.Filed, r.State]);

/** A report form's fields as a browser would post them, without the CSRF token (the agent adds its own). */
export function draftOf(body: string, action: string): Record<string, string> {
  const { _csrf, ...fields } = formFields(formFor(parseHtml(body), action));
  return fields;
}
