import type { Config } from '../config.js';
import type { BodyBudget } from '../sbom/http/body-budget.js';
import type { Services } from '../services.js';
import type { Role, SessionStage, UserRow } from '../db/schema.js';
import type { MembershipView } from '../users/users.service.js';

/**
 * What the console's pages are given: the same services as the API and the CLI, and the
 * API's bound on SBOM bodies in memory (the upload form holds from it too).
 */
export type ConsoleDeps = Services & { config: Config; sbomBodies: BodyBudget };

/** The signed-in person and, on /console/o/:org pages, the organisation they are working in. */
export interface ConsoleViewer {
  user: UserRow;
  memberships: MembershipView[];
  sessionDigest: string;
  stage: SessionStage;
  org: MembershipView | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    viewer: ConsoleViewer | null;
  }
}

export type Permission = 'keys' | 'products' | 'sbom' | 'cases' | 'members' | 'settings' | 'webhooks' | 'analysis' | 'feeds' | 'disclosure';

// console.md: owner may everything; admin keys, products and settings; analyst triage, cases,
// reports and SBOM uploads; viewer reads only. Webhook endpoints are organisation settings: owner and admin.
// Analyses of findings: analysts and above; the Feeds page (the instance's feeds): owner and admin.
// Disclosure reports (disclosure.md): the reporter's identity, the attachments and answering the
// reporter are for analysts and above; viewers read the conversation only.
const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ['keys', 'products', 'sbom', 'cases', 'members', 'settings', 'webhooks', 'analysis', 'feeds', 'disclosure'],
  admin: ['keys', 'products', 'sbom', 'settings', 'webhooks', 'analysis', 'feeds', 'disclosure'],
  analyst: ['sbom', 'cases', 'analysis', 'disclosure'],
  viewer: [],
};

export function may(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** The registry actor for changes made in the console. */
export function actorOf(viewer: ConsoleViewer): string {
  return `user:${viewer.user.email}`;
}
