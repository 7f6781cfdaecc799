import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { findUnstorableText, jsonMayHoldUnstorableText } from '../../src/shared/storable-text.js';
import { buildHarness, suiteTeardown, type Harness } from '../helpers/app.js';

/** The AppError a call rejects with, for assertions on its code and details. */
async function appError(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  assert.fail('expected an AppError');
}

describe('text the database cannot store', () => {
  it('is found at any depth, in values and member names, as JSON pointers', () => {
    const doc = { a: ['ok', 'b\u0000c'], 'x/y': { '~k\u0000': 1, deep: 'lone \ud800 surrogate' }, fine: 'pair \ud83d\ude00' };
    assert.deepEqual(
      findUnstorableText(doc).map((d) => d.path),
      ['/a/1', '/x~1y/~0k\u0000', '/x~1y/deep'],
    );
    let deep: unknown = 'a\u0000';
    for (let i = 0; i < 100_000; i++) deep = { c: [deep] };
    assert.equal(findUnstorableText(deep).length, 1, 'no stack overflow at depth 100 000');
    assert.equal(jsonMayHoldUnstorableText(JSON.stringify(doc)), true);
    assert.equal(jsonMayHoldUnstorableText(JSON.stringify({ fine: 'pair \ud83d\ude00 and \u0001' })), false);
  });

  describe('in the services, the same 422 on both backends', () => {
    let h: Harness;
    const teardown = suiteTeardown();
    before(async () => {
      h = await buildHarness(teardown);
      await h.orgs.createOrg({ slug: 'acme' });
      await h.products.addProduct('acme', 'P-1', { name: 'Pump' });
    });

    it('organisation name; a slug with NUL names no organisation', async () => {
      const error = await appError(h.orgs.createOrg({ slug: 'beta', name: 'Beta\u0000GmbH' }));
      assert.equal(error.code, 'validation_failed');
      assert.deepEqual(
        error.details?.map((d) => d.path),
        ['/name'],
      );
      assert.match(error.message, /^name contains a NUL character/);
      assert.equal((await appError(h.orgs.requireOrg('ac\u0000me'))).code, 'not_found');
    });

    it('product name, GTIN and firmware version, on add and update; a SKU with NUL names no product', async () => {
      const added = await appError(h.products.addProduct('acme', 'P-2', { name: 'Valve\u0000', firmwareVersion: '1.0\ud800' }));
      assert.equal(added.code, 'validation_failed');
      assert.deepEqual(
        added.details?.map((d) => d.path),
        ['/name', '/firmware_version'],
      );
      const updated = await appError(h.products.updateProduct('acme', 'P-1', { gtin: '4006381333931\u0000' }));
      assert.deepEqual(
        updated.details?.map((d) => d.path),
        ['/gtin'],
      );
      assert.equal((await appError(h.products.archiveProduct('acme', 'P-1\u0000'))).code, 'product_not_found');
      assert.equal((await h.products.listProducts('acme')).length, 1);
    });

    it('key name; a key name with NUL names no key', async () => {
      const error = await appError(h.keys.createKey({ org: 'acme', name: 'ci\u0000', scopes: ['products:read'] }));
      assert.deepEqual(
        error.details?.map((d) => d.path),
        ['/name'],
      );
      assert.equal((await appError(h.keys.revokeKey({ org: 'acme', name: 'ci\u0000' }))).code, 'not_found');
    });

    it('case title and note; a console e-mail address with NUL is no address', async () => {
      const org = await h.orgs.requireOrg('acme');
      const { incident_number } = await h.incidents.receiveSignal({ orgId: org.id, source: 'test' }, { description: 'report' });
      const error = await appError(
        h.cases.openCase('acme', { signalNumber: incident_number, notifiable: false, note: 'n\u0000', title: 't\u0000' }),
      );
      assert.deepEqual(
        error.details?.map((d) => d.path),
        ['/title', '/note'],
      );
      assert.equal(
        (await appError(h.users.invite({ org: 'acme', email: 'a\u0000@b.example', role: 'viewer', actor: 'test' }))).code,
        'validation_failed',
      );
    });

    it('a key with an empty scope list is refused with a clear message', async () => {
      const error = await appError(h.keys.createKey({ org: 'acme', name: 'no-scope', scopes: [] }));
      assert.equal(error.code, 'validation_failed');
      assert.match(error.message, /at least one scope/);
      assert.deepEqual(await h.keys.listKeys('acme'), []);
    });
  });
});
