import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import type { Database } from '../../src/db/index.js';
import { createAuthenticator } from '../../src/keys/authenticate.js';
import { useHarness } from '../helpers/app.js';

// The authenticator remembers keys between commits (src/keys/authenticate.ts), trusting the
// database's change token to say when anything was written. These tests hold the token still
// by hand to show what is remembered and what is checked on every request regardless; the
// security table (test/helpers/security.ts) and the server-process test show that with the
// real token a revocation, from this process or from cra-admin, applies to the next request.
describe('the authenticator between commits', () => {
  const harness = useHarness();

  /** The name of the one key a fresh tenant has. */
  const onlyKeyName = async (slug: string) => (await harness().keys.listKeys(slug))[0]!.name;

  function withToken(database: Database) {
    const control = { token: 'before' as string | null };
    const authenticate = createAuthenticator({ ...database, changeToken: async () => control.token }, harness().clock.now);
    return { control, authenticate };
  }

  it('answers from memory while the token holds and looks the key up again once it changes', async () => {
    const h = harness();
    const t = await h.tenant('auth-memory', ['products:read']);
    const { control, authenticate } = withToken(h.database);
    assert.equal((await authenticate(t.key))?.orgId, t.orgId);
    await h.keys.revokeKey({ org: t.slug, name: await onlyKeyName(t.slug) });
    assert.equal((await authenticate(t.key))?.orgId, t.orgId, 'remembered: the token did not move');
    control.token = 'after';
    assert.equal(await authenticate(t.key), null, 'a new token: the revocation is seen');
  });

  it('never remembers anything when the database gives no token', async () => {
    const h = harness();
    const t = await h.tenant('auth-no-token', ['products:read']);
    const { control, authenticate } = withToken(h.database);
    control.token = null;
    assert.ok(await authenticate(t.key));
    await h.keys.revokeKey({ org: t.slug, name: await onlyKeyName(t.slug) });
    assert.equal(await authenticate(t.key), null);
  });

  it('checks expiry on every request, remembered or not', async () => {
    const h = harness();
    const t = await h.tenant('auth-expiry', ['products:read']);
    const issued = await h.keys.createKey({
      org: t.slug,
      name: 'short',
      scopes: ['products:read'],
      expiresAt: new Date(h.clock.now().getTime() + 60_000),
    });
    const { authenticate } = withToken(h.database);
    assert.ok(await authenticate(issued.secret));
    h.clock.advance(60_000);
    assert.equal(await authenticate(issued.secret), null);
  });

  it('ends a rotated-out secret when its grace ends, with the token held still', async () => {
    const h = harness();
    const t = await h.tenant('auth-grace', ['products:read']);
    await h.keys.rotateKey({ org: t.slug, name: await onlyKeyName(t.slug), graceMs: 60_000 });
    const { authenticate } = withToken(h.database);
    assert.ok(await authenticate(t.key), 'in grace');
    h.clock.advance(60_000);
    assert.equal(await authenticate(t.key), null, 'grace over');
  });

  it('looks up a secret it has not seen, even with the token held still', async () => {
    const h = harness();
    const t = await h.tenant('auth-unknown', ['products:read']);
    const { authenticate } = withToken(h.database);
    assert.ok(await authenticate(t.key));
    const rotated = await h.keys.rotateKey({ org: t.slug, name: await onlyKeyName(t.slug) });
    assert.equal((await authenticate(rotated.secret))?.orgId, t.orgId);
  });

  it('records last use through database.transaction, never by writing on the shared handle', async () => {
    const h = harness();
    const t = await h.tenant('auth-touch', ['products:read']);
    // The shared handle refuses writes: the write contract says they go through `transaction`.
    const refuseWrites: KyselyPlugin = {
      transformQuery({ node }) {
        if (node.kind === 'InsertQueryNode' || node.kind === 'UpdateQueryNode' || node.kind === 'DeleteQueryNode') {
          throw new Error(`${node.kind} outside database.transaction`);
        }
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const touchErrors: unknown[] = [];
    const database: Database = { ...h.database, db: h.database.db.withPlugin(refuseWrites) };
    const authenticate = createAuthenticator(database, h.clock.now, (error) => touchErrors.push(error));
    assert.ok(await authenticate(t.key));
    const name = await onlyKeyName(t.slug);
    let lastUsed: string | null = null;
    for (let i = 0; i < 100 && lastUsed === null && touchErrors.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      lastUsed = (await h.keys.listKeys(t.slug)).find((k) => k.name === name)!.last_used_at;
    }
    assert.deepEqual(touchErrors.map(String), []);
    assert.equal(lastUsed, h.clock.now().toISOString());
  });
});
