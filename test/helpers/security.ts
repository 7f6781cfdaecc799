import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Scope } from '../../src/keys/scopes.js';
import { SCOPES } from '../../src/keys/scopes.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from './app.js';

/** One API operation as the shared security table exercises it. */
export interface OperationUnderTest {
  name: string;
  /**
   * The operationId in the OpenAPI document. test/http/security-coverage.test.ts fails for any
   * operation of the document that no securitySuite names, and the suite checks that the
   * operation it names has this method and path.
   */
  operationId: string;
  method: 'GET' | 'POST';
  /** Full-prefix URL; may depend on what `setup` created. */
  url: (h: Harness, tenant: Tenant) => string;
  scope: Scope;
  /** The status an authorised call gets. */
  okStatus: number;
  payload?: () => unknown;
  /** Creates what a successful call needs (a product, say). */
  setup?: (h: Harness, tenant: Tenant) => Promise<void>;
  /** Proves that a key of organisation B never sees or changes organisation A's data. */
  tenancy: (h: Harness, a: Tenant, b: Tenant) => Promise<void>;
}

function send(h: Harness, op: OperationUnderTest, tenant: Tenant, headers: Record<string, string>) {
  const payload = op.payload?.();
  return h.app.inject({
    method: op.method,
    url: op.url(h, tenant),
    headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
}

function assertUnauthorized(res: { statusCode: number; json(): unknown; headers: Record<string, unknown> }) {
  assert.equal(res.statusCode, 401);
  const body = res.json() as Record<string, unknown>;
  assert.equal(body.code, 'unauthorized');
  assert.equal(typeof body.errore, 'string');
  assert.equal(typeof body.request_id, 'string');
  assert.equal(res.headers['x-ratelimit-limit'], undefined, 'no quota is reported to an unauthenticated caller');
}

/** The security table every API operation runs (decisions §4, api-v1 §5). */
export function securitySuite(op: OperationUnderTest): void {
  describe(`${op.name}: security table`, () => {
    let h: Harness;
    let tenant: Tenant;
    const otherScopes = SCOPES.filter((s) => s !== op.scope);

    const teardown = suiteTeardown();
    before(async () => {
      h = await buildHarness(teardown);
      tenant = await h.tenant('sec-a', [op.scope]);
      await op.setup?.(h, tenant);
    });

    it(`is operation ${op.operationId} of the OpenAPI document, with this method and path`, async () => {
      const doc = (await h.app.inject({ method: 'GET', url: '/swagger/openapi.json', headers: { host: '127.0.0.1' } })).json();
      const found = Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, operation]) => operation.operationId === op.operationId)
          .map(([method]) => ({ path, method })),
      );
      assert.equal(found.length, 1, `${op.operationId} is in the document once`);
      assert.equal(found[0]!.method.toUpperCase(), op.method);
      const pattern = new RegExp(`^/api/v1/external${found[0]!.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      assert.match(op.url(h, tenant), pattern);
    });

    it('accepts the key in X-CRA-API-Key', async () => {
      const res = await send(h, op, tenant, { 'x-cra-api-key': tenant.key });
      assert.equal(res.statusCode, op.okStatus, res.body);
      assert.equal(res.headers['x-ratelimit-limit'], '100');
    });

    it('accepts the key as Authorization: Bearer, scheme in any case', async () => {
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        const res = await send(h, op, tenant, { authorization: `${scheme} ${tenant.key}` });
        assert.equal(res.statusCode, op.okStatus, res.body);
      }
    });

    it('401 without a key', async () => assertUnauthorized(await send(h, op, tenant, {})));

    it('401 for a well-formed key that does not exist', async () => {
      const { generateKey } = await import('../../src/keys/key-format.js');
      assertUnauthorized(await send(h, op, tenant, { 'x-cra-api-key': generateKey() }));
    });

    it('401 for a malformed key or a wrong checksum', async () => {
      const flipped = tenant.key.slice(0, -1) + (tenant.key.endsWith('A') ? 'B' : 'A');
      for (const bad of ['nonsense', 'cra_short', flipped, `${tenant.key}x`]) {
        assertUnauthorized(await send(h, op, tenant, { 'x-cra-api-key': bad }));
      }
      assertUnauthorized(await send(h, op, tenant, { authorization: `Basic ${tenant.key}` }));
    });

    it('401 when both headers carry different keys', async () => {
      const second = await tenant.keyFor([op.scope]);
      assertUnauthorized(await send(h, op, tenant, { 'x-cra-api-key': tenant.key, authorization: `Bearer ${second}` }));
      const same = await send(h, op, tenant, { 'x-cra-api-key': tenant.key, authorization: `Bearer ${tenant.key}` });
      assert.equal(same.statusCode, op.okStatus);
    });

    it('401 for a revoked key, at once', async () => {
      const key = await tenant.keyFor([op.scope], 'to-revoke');
      assert.equal((await send(h, op, tenant, { 'x-cra-api-key': key })).statusCode, op.okStatus);
      await h.keys.revokeKey({ org: tenant.slug, name: 'to-revoke' });
      assertUnauthorized(await send(h, op, tenant, { 'x-cra-api-key': key }));
    });

    it('401 for an expired key', async () => {
      const issued = await h.keys.createKey({
        org: tenant.slug,
        name: 'short-lived',
        scopes: [op.scope],
        expiresAt: new Date(h.clock.now().getTime() + 60_000),
      });
      assert.equal((await send(h, op, tenant, { 'x-cra-api-key': issued.secret })).statusCode, op.okStatus);
      h.clock.advance(60_000);
      assertUnauthorized(await send(h, op, tenant, { 'x-cra-api-key': issued.secret }));
      h.clock.advance(-60_000);
    });

    it('401 for a rotated-out secret; the grace period keeps it alive until it ends', async () => {
      const old = await tenant.keyFor([op.scope], 'rotating');
      const rotated = await h.keys.rotateKey({ org: tenant.slug, name: 'rotating' });
      assertUnauthorized(await send(h, op, tenant, { 'x-cra-api-key': old }));
      assert.equal((await send(h, op, tenant, { 'x-cra-api-key': rotated.secret })).statusCode, op.okStatus);
      const withGrace = await h.keys.rotateKey({ org: tenant.slug, name: 'rotating', graceMs: 600_000 });
      assert.equal(
        (await send(h, op, tenant, { 'x-cra-api-key': rotated.secret })).statusCode,
        op.okStatus,
        'old secret works during grace',
      );
      assert.equal((await send(h, op, tenant, { 'x-cra-api-key': withGrace.secret })).statusCode, op.okStatus);
      h.clock.advance(600_000);
      assertUnauthorized(await send(h, op, tenant, { 'x-cra-api-key': rotated.secret }));
      h.clock.advance(-600_000);
    });

    it(`403 for a valid key without ${op.scope}`, async () => {
      const key = await tenant.keyFor(otherScopes);
      const res = await send(h, op, tenant, { 'x-cra-api-key': key });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'forbidden');
      assert.ok(res.headers['x-ratelimit-remaining'] !== undefined);
    });

    it('405 with Allow for other methods, before authentication', async () => {
      const url = op.url(h, tenant);
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const) {
        if (method === op.method) continue;
        const res = await h.app.inject({ method, url });
        assert.equal(res.statusCode, 405, `${method} ${url}`);
        assert.equal(res.headers.allow, op.method);
        if (method !== 'HEAD') assert.equal(res.json().code, 'method_not_allowed');
      }
    });

    it('another organisation never sees or touches this one', async () => {
      const other = await h.tenant(`sec-b-${Date.now()}`, [op.scope]);
      await op.tenancy(h, tenant, other);
    });
  });
}
