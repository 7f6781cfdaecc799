import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ABBREVIATION_MARK,
  abbreviate,
  compactTypeAndLicences,
  componentText,
  componentTexts,
  expandAbbreviated,
  expandCompact,
  FORMS,
  purlNameDiffers,
  storedWhole,
} from '../../../src/sbom/parse/component-rows.js';
import type { CompactLicences, CompactType } from '../../../src/db/schema.js';
import { componentsRepo } from '../../../src/sbom/store/components.repo.js';
import { buildHarness, suiteTeardown } from '../../helpers/app.js';
import { cycloneDx16 } from '../sbom-fixtures.js';

// A component's purl and ref are stored abbreviated around its "name@version" where that is
// exact (component-rows.ts, abbreviate; migration 015), its type "library" empty and a list of
// one licence as the licence alone (compactTypeAndLicences), and every reader gets them back whole.

interface Case {
  why: string;
  name: string;
  version: string | null;
  purl: string | null;
  ref: string | null;
  forms: number;
}

const { purlAbbreviated, refAbbreviated, refIsPurl } = FORMS;
const CASES: Case[] = [
  {
    why: 'npm, bom-ref name@version (cyclonedx-npm)',
    name: 'lodash',
    version: '4.17.21',
    purl: 'pkg:npm/lodash@4.17.21',
    ref: 'lodash@4.17.21',
    forms: purlAbbreviated | refAbbreviated,
  },
  {
    why: 'scoped npm',
    name: 'core',
    version: '7.1.0',
    purl: 'pkg:npm/%40babel/core@7.1.0',
    ref: '@babel/core@7.1.0',
    forms: purlAbbreviated | refAbbreviated,
  },
  {
    why: 'Maven, bom-ref = purl',
    name: 'guava',
    version: '33.0.0-jre',
    purl: 'pkg:maven/com.google.guava/guava@33.0.0-jre?type=jar',
    ref: 'pkg:maven/com.google.guava/guava@33.0.0-jre?type=jar',
    forms: purlAbbreviated | refIsPurl,
  },
  {
    why: 'syft: bom-ref the purl and a package id',
    name: 'six',
    version: '1.16.0',
    purl: 'pkg:pypi/six@1.16.0',
    ref: 'pkg:pypi/six@1.16.0?package-id=8f1b2c',
    forms: purlAbbreviated | refAbbreviated,
  },
  {
    why: 'SPDX id, no name@version in it',
    name: 'zlib',
    version: '1.3',
    purl: 'pkg:generic/zlib@1.3',
    ref: 'SPDXRef-Package-zlib',
    forms: purlAbbreviated,
  },
  { why: 'no version: nothing to abbreviate', name: 'openssl', version: null, purl: 'pkg:generic/openssl', ref: 'openssl', forms: 0 },
  { why: 'no purl, ref abbreviated', name: 'busybox', version: '1.36.1', purl: null, ref: 'busybox@1.36.1', forms: refAbbreviated },
  { why: 'nothing', name: 'blob', version: '1', purl: null, ref: null, forms: 0 },
  {
    why: 'the purl names another package: stored whole (partial purl index)',
    name: 'a',
    version: '1',
    purl: 'pkg:npm/ba@1',
    ref: 'pkg:npm/ba@1',
    forms: refIsPurl,
  },
  {
    why: 'the purl holds the mark itself: stored whole',
    name: 'x',
    version: '1',
    purl: `pkg:npm/x@1?q=${ABBREVIATION_MARK}`,
    ref: `x@1${ABBREVIATION_MARK}`,
    forms: 0,
  },
  {
    why: 'the mark in the purl, ref = purl',
    name: 'x',
    version: '1',
    purl: `pkg:npm/x@1#${ABBREVIATION_MARK}`,
    ref: `pkg:npm/x@1#${ABBREVIATION_MARK}`,
    forms: refIsPurl,
  },
  {
    why: 'name@version twice: the first one abbreviated',
    name: 'x',
    version: '1',
    purl: 'pkg:npm/x@1',
    ref: 'x@1/x@1',
    forms: purlAbbreviated | refAbbreviated,
  },
  { why: 'replacement patterns in the name', name: "$&$1$'$`", version: '$$', purl: null, ref: "a/$&$1$'$`@$$/b", forms: refAbbreviated },
  { why: 'the mark in the name', name: `m${ABBREVIATION_MARK}`, version: '2', purl: null, ref: `m${ABBREVIATION_MARK}@2`, forms: 0 },
  { why: 'an empty name', name: '', version: '9', purl: 'pkg:generic/@9', ref: '@9', forms: purlAbbreviated | refAbbreviated },
  {
    why: 'characters outside ASCII and the BMP',
    name: 'ñandú-😀',
    version: 'β.1',
    purl: 'pkg:generic/%C3%B1and%C3%BA-%F0%9F%98%80@%CE%B2.1',
    ref: 'ñandú-😀@β.1',
    forms: refAbbreviated,
  },
];

describe('abbreviated purls and refs', () => {
  it('are stored shorter where the tools write name@version, and read back exactly', () => {
    for (const c of CASES) {
      const stored = abbreviate(c);
      assert.equal(stored.forms, c.forms, c.why);
      assert.deepEqual(expandAbbreviated({ ...c, ...stored }), { purl: c.purl, ref: c.ref }, c.why);
      if (stored.forms & purlAbbreviated) assert.ok(String(stored.purl).length < c.purl!.length, c.why);
      if (stored.forms & refIsPurl) assert.equal(stored.ref, ABBREVIATION_MARK, c.why);
      if (purlNameDiffers(c.name, c.purl)) assert.equal(stored.purl, c.purl, `${c.why}: the partial index finds it by its purl`);
    }
  });

  const teardown = suiteTeardown();

  it('every reader gets them back whole from the database; search by purl finds them', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    await h.products.addProduct('acme', 'GW-1', { name: 'Gateway' });
    const doc = cycloneDx16(0);
    doc.components = CASES.map((c, i) => ({
      type: 'library',
      name: c.name,
      ...(c.version !== null ? { version: c.version } : {}),
      ...(c.purl !== null ? { purl: c.purl } : {}),
      // bom-refs are unique in a document: the cases that share one get the document's order.
      ...(c.ref !== null ? { 'bom-ref': c.ref } : { description: `case ${i}` }),
    }));
    const ingested = await h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'GW-1', bytes: Buffer.from(JSON.stringify(doc)), actor: 'test' });
    const read = await componentsRepo.ofRevision(h.database.db, acme.orgId, ingested.sbom.sbom_id);
    assert.deepEqual(
      read.map((c) => ({ name: c.name, version: c.version, purl: c.purl, ref: c.ref })),
      CASES.map((c) => ({ name: c.name, version: c.version, purl: c.purl, ref: c.ref })),
    );

    // As stored: abbreviated where the case says so.
    const rows = await h.database.db
      .selectFrom('components')
      .select(['id', 'purl', 'ref', 'forms'])
      .where(
        'id',
        'in',
        read.map((c) => c.id),
      )
      .execute();
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    read.forEach((c, i) => {
      const row = byId.get(c.id)!;
      // Every case is a library with no licence: the type's form is set on all of them.
      assert.equal(Number(row.forms), CASES[i]!.forms | FORMS.typeLibrary, CASES[i]!.why);
      assert.deepEqual({ purl: row.purl, ref: row.ref }, (({ purl, ref }) => ({ purl, ref }))(abbreviate(CASES[i]!)), CASES[i]!.why);
    });

    // Search by purl: through the name for the abbreviated ones, through the partial index for the other.
    for (const c of CASES.filter((c) => c.purl !== null)) {
      const hits = await h.portfolio.searchComponents('acme', { purl: c.purl! });
      assert.deepEqual(
        hits.map((hit) => hit.component),
        [{ name: c.name, version: c.version, purl: c.purl }],
        c.why,
      );
    }

    // The same document again stores nothing new: found by content, as sent.
    const again = await h.sbom.ingestSbom({
      orgId: acme.orgId,
      sku: 'GW-1',
      bytes: Buffer.from(JSON.stringify({ ...doc, serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79' })),
      actor: 'test',
    });
    assert.deepEqual(
      (await componentsRepo.ofRevision(h.database.db, acme.orgId, again.sbom.sbom_id)).map((c) => c.id),
      read.map((c) => c.id),
    );
  });
});

/** Types and licence lists as the normaliser hands them on, with the forms they are stored in. */
const COMPACT: Array<{
  why: string;
  type: string | null;
  licenses: string[];
  forms: number;
  storedLicences: string;
  /** Not sent in a document (the schema, the normaliser or the 422 of lone surrogates keeps it out). */
  pureOnly?: true;
}> = [
  {
    why: 'a library under one SPDX id',
    type: 'library',
    licenses: ['MIT'],
    forms: FORMS.typeLibrary | FORMS.licenceBare,
    storedLicences: 'MIT',
  },
  {
    why: 'an expression',
    type: 'library',
    licenses: ['MIT OR Apache-2.0'],
    forms: FORMS.typeLibrary | FORMS.licenceBare,
    storedLicences: 'MIT OR Apache-2.0',
  },
  { why: 'two licences: whole', type: 'library', licenses: ['MIT', 'ISC'], forms: FORMS.typeLibrary, storedLicences: '["MIT","ISC"]' },
  { why: 'no licence', type: 'framework', licenses: [], forms: 0, storedLicences: '' },
  {
    why: 'another type, one licence',
    type: 'application',
    licenses: ['GPL-2.0-only'],
    forms: FORMS.licenceBare,
    storedLicences: 'GPL-2.0-only',
  },
  { why: 'no type', type: null, licenses: ['Zlib'], forms: FORMS.licenceBare, storedLicences: 'Zlib', pureOnly: true },
  {
    why: 'a licence JSON escapes (quote): whole',
    type: 'library',
    licenses: ['The "Fair" Licence'],
    forms: FORMS.typeLibrary,
    storedLicences: '["The \\"Fair\\" Licence"]',
  },
  { why: 'a backslash: whole', type: 'library', licenses: ['a\\b'], forms: FORMS.typeLibrary, storedLicences: '["a\\\\b"]' },
  { why: 'a control character: whole', type: 'library', licenses: ['x\u0001y'], forms: FORMS.typeLibrary, storedLicences: '["x\\u0001y"]' },
  {
    why: 'a lone surrogate: whole',
    type: 'library',
    licenses: ['x\ud800'],
    forms: FORMS.typeLibrary,
    storedLicences: '["x\\ud800"]',
    pureOnly: true,
  },
  { why: 'an empty licence: whole', type: 'library', licenses: [''], forms: FORMS.typeLibrary, storedLicences: '[""]', pureOnly: true },
  {
    why: 'outside ASCII, bare',
    type: 'library',
    licenses: ['Licence ñandú 😀'],
    forms: FORMS.typeLibrary | FORMS.licenceBare,
    storedLicences: 'Licence ñandú 😀',
  },
  {
    why: 'a licence that looks like a list',
    type: 'library',
    licenses: ['["MIT"]'],
    forms: FORMS.typeLibrary,
    storedLicences: '["[\\"MIT\\"]"]',
  },
  {
    why: 'a type that is not quite library',
    type: 'Library',
    licenses: ['MIT'],
    forms: FORMS.licenceBare,
    storedLicences: 'MIT',
    pureOnly: true,
  },
];

describe('compact types and licences', () => {
  it('a library is stored with an empty type and one licence bare, and both read back exactly', () => {
    for (const c of COMPACT) {
      const whole = JSON.parse(
        componentText({ name: 'n', version: null, purl: null, type: c.type, licenses: c.licenses, ref: null }).split('\u0000')[4] || 'null',
      );
      assert.deepEqual(whole ?? [], c.licenses, `${c.why}: the text holds the list as JSON`);
      const licencesText = c.licenses.length === 0 ? '' : JSON.stringify(c.licenses);
      const stored = compactTypeAndLicences(c.type ?? '', licencesText, c.licenses);
      assert.equal(stored.forms, c.forms, c.why);
      assert.equal(stored.licences, c.storedLicences, c.why);
      assert.equal(stored.type, c.forms & FORMS.typeLibrary ? '' : (c.type ?? ''), c.why);
      assert.deepEqual(
        expandCompact({ type: stored.type || null, licenses: stored.licences || null, forms: stored.forms }),
        { type: c.type, licenses: licencesText || null },
        c.why,
      );
      // The key's text is the one sent, whatever is stored.
      const texts = componentTexts({ name: 'n', version: null, purl: null, type: c.type, licenses: c.licenses, ref: null });
      assert.equal(texts.forms, c.forms, c.why);
      assert.equal(
        texts.text,
        componentText({ name: 'n', version: null, purl: null, type: c.type, licenses: c.licenses, ref: null }),
        c.why,
      );
    }
  });

  const teardown = suiteTeardown();

  it('every reader gets them back from the database, from rows in either form', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    await h.products.addProduct('acme', 'GW-1', { name: 'Gateway' });
    const doc = cycloneDx16(0);
    const cases = COMPACT.filter((c) => !c.pureOnly);
    doc.components = cases.map((c, i) => ({
      type: c.type!,
      name: `c${i}`,
      version: '1.0.0',
      'bom-ref': `c${i}@1.0.0`,
      ...(c.licenses.length > 0
        ? { licenses: c.licenses.map((l) => (/ OR /.test(l) ? { expression: l } : { license: { name: l } })) }
        : {}),
    }));
    const ingested = await h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'GW-1', bytes: Buffer.from(JSON.stringify(doc)), actor: 'test' });
    const expected = cases.map((c) => ({ type: c.type, licenses: c.licenses.length === 0 ? null : JSON.stringify(c.licenses) }));
    const read = await componentsRepo.ofRevision(h.database.db, acme.orgId, ingested.sbom.sbom_id);
    assert.deepEqual(
      read.map((c) => ({ type: c.type, licenses: c.licenses })),
      expected,
    );

    // As stored: an empty type, the one licence alone.
    const ids = read.map((c) => c.id);
    const rows = await h.database.db.selectFrom('components').select(['id', 'type', 'licenses', 'forms']).where('id', 'in', ids).execute();
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    read.forEach((c, i) => {
      const row = byId.get(c.id)!;
      const want = cases[i]!;
      assert.equal(Number(row.forms) & (FORMS.typeLibrary | FORMS.licenceBare), want.forms, want.why);
      assert.equal(row.type, want.forms & FORMS.typeLibrary ? '' : want.type, want.why);
      assert.equal(row.licenses ?? '', want.storedLicences, want.why);
    });

    // Rows stored before these forms (both whole, the bits clear) read the same; so do a type
    // stored empty or null without the bit (a component with none).
    await h.database.transaction(async (trx) => {
      for (const [i, c] of cases.entries()) {
        await trx
          .updateTable('components')
          .set({
            type: storedWhole<CompactType>(c.type),
            licenses: storedWhole<CompactLicences>(c.licenses.length === 0 ? null : JSON.stringify(c.licenses)),
            forms: 0,
          })
          .where('id', '=', ids[i]!)
          .execute();
      }
    });
    const old = await componentsRepo.ofRevision(h.database.db, acme.orgId, ingested.sbom.sbom_id);
    assert.deepEqual(
      old.map((c) => ({ type: c.type, licenses: c.licenses })),
      expected,
    );
    for (const none of ['', null]) {
      await h.database.transaction((trx) =>
        trx
          .updateTable('components')
          .set({ type: storedWhole<CompactType>(none), forms: 0 })
          .where('id', '=', ids[0]!)
          .execute(),
      );
      assert.equal((await componentsRepo.ofRevision(h.database.db, acme.orgId, ingested.sbom.sbom_id))[0]!.type, null);
    }
  });
});
