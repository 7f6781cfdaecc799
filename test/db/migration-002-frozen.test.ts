import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { frozen002 } from '../../src/db/migrations/002-shared-components.js';
import { frozen014 } from '../../src/db/migrations/014-compact-components.js';
import { frozen016 } from '../../src/db/migrations/016-name-prefixed-keys.js';
import { componentFields, componentKey, componentText } from '../../src/sbom/parse/component-rows.js';
import { decodeIds, encodeIds } from '../../src/sbom/store/id-list.js';
import type { NormalisedComponent } from '../../src/sbom/parse/normalise.js';

// Migration 002 carries its own frozen copies of the component key and the packed id list. What
// it wrote must stay what the live code computes and reads: when this fails, the live code has
// changed under rows the migration stored, and needs a migration of its own, not an edit of 002.

const components: NormalisedComponent[] = [
  { name: 'lib', version: '1.0.0', purl: 'pkg:npm/lib@1.0.0', type: 'library', licenses: ['MIT'], ref: 'pkg:npm/lib@1.0.0' },
  { name: 'bare', version: null, purl: null, type: null, licenses: [], ref: null },
  { name: 'Grüße ✓', version: '2', purl: null, type: 'framework', licenses: ['MIT', 'Apache-2.0 OR GPL-2.0-only'], ref: 'x' },
  { name: '', version: '', purl: 'pkg:generic/empty', type: 'file', licenses: [], ref: '' },
];

describe('migration 002 agrees with the live SBOM code', () => {
  it('computes the component key, carried through 014 and 016, that the ingest computes from the document', () => {
    for (const c of components) {
      const stored = componentFields(componentText(c));
      assert.equal(frozen002.storedComponentText(stored), componentText(c), JSON.stringify(c));
      // 002's key, as 014 decoded it and 016 re-keyed it.
      const key = frozen014.keyBytes(frozen002.componentKey(frozen002.storedComponentText(stored)));
      assert.equal(frozen016.rekeyed(c.name, key).toString('base64url'), componentKey(componentText(c)), JSON.stringify(c));
    }
  });

  it('packs id lists that the live code reads back, byte for byte as the live code packs them', () => {
    const lists = [[], [1], [5, 3, 3, 9_000_000, 1, 7, 3], Array.from({ length: 300 }, (_, i) => 2 ** 40 - i * 97)];
    for (const ids of lists) {
      assert.deepEqual(decodeIds(frozen002.encodeIds(ids)), ids);
      assert.deepEqual(frozen002.encodeIds(ids), encodeIds(ids));
    }
  });
});
