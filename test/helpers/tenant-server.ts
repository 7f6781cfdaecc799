import assert from 'node:assert/strict';
import { createServices } from '../../src/services.js';
import { createTestDatabase } from './db.js';
import type { RawResponse } from './raw-http.js';
import { startServer, type RunningServer } from './server.js';

export interface TenantServer {
  server: RunningServer;
  /** A key of organisation `acme` with every scope; product SKU `P-1` exists. */
  key: string;
  /** The services on the same database, to look at what the server stored. */
  services: ReturnType<typeof createServices>;
  stop(): Promise<void>;
}

/** The server as a process on a fresh database of this run's backend, with one tenant. */
export async function startTenantServer(env: Record<string, string> = {}): Promise<TenantServer> {
  const testDb = await createTestDatabase();
  const services = createServices({ database: testDb.database });
  await services.orgs.createOrg({ slug: 'acme' });
  const { secret } = await services.keys.createKey({
    org: 'acme',
    name: 'ci',
    scopes: ['incidents:write', 'products:read', 'products:write', 'compliance:read'],
  });
  await services.products.addProduct('acme', 'P-1', { name: 'Pump' });
  const server = await startServer({ DATABASE_URL: testDb.url, LOG_LEVEL: 'warn', ...env });
  return {
    server,
    key: secret,
    services,
    async stop() {
      await server.stop();
      await testDb.drop();
    },
  };
}

/** The contract's error body (decisions §4): JSON with errore, code and request_id, and the same id in X-Request-Id. */
export function assertErrorBody(response: RawResponse, status: number, code?: string, label = ''): Record<string, unknown> {
  assert.equal(response.status, status, `${label}: status (${response.body.slice(0, 200)})`);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/, `${label}: content type`);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(typeof body.errore, 'string', `${label}: errore`);
  assert.equal(typeof body.request_id, 'string', `${label}: request_id`);
  assert.equal(response.headers['x-request-id'], body.request_id, `${label}: X-Request-Id`);
  if (code) assert.equal(body.code, code, `${label}: code`);
  else assert.equal(typeof body.code, 'string', `${label}: code`);
  return body;
}
