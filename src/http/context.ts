import type { Principal } from '../keys/authenticate.js';
import type { Scope } from '../keys/scopes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every API operation: the scope its key must carry. Routes without it are public. */
    scope?: Scope;
  }
  interface FastifyRequest {
    /** The authenticated key, set by the auth hook on API operations. */
    principal: Principal | null;
  }
}

/** Every API operation answers under this prefix on every host. */
export const API_PREFIX = '/api/v1/external';
/** The short form, answered only on the dedicated API hosts (API_HOSTS). */
export const SHORT_PREFIX = '/v1';
