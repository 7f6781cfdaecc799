import type { Config } from '../config.js';
import type { BodyBudget } from '../sbom/http/body-budget.js';
import type { Services } from '../services.js';
import type { SessionStage, UserRow } from '../db/schema.js';
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

/** The registry actor for changes made in the console. */
export function actorOf(viewer: ConsoleViewer): string {
  return `user:${viewer.user.email}`;
}
