import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { componentsRepo } from '../../src/sbom/store/components.repo.js';
import { type Harness, useHarness } from '../helpers/app.js';
import { cycloneDx16 } from './sbom-fixtures.js';

// The CPEs a firmware SBOM gives its components and its subject (firmware.md, "Which CPE a
// component has"), read at ingest from real Yocto and Buildroot output uploaded through the API
// (test/fixtures/firmware/README.md).

const FIRMWARE_SBOMS = fileURLToPath(new URL('../fixtures/firmware/sbom/', import.meta.url));
const firmwareSbom = (file: string) => readFileSync(`${FIRMWARE_SBOMS}${file}`);

/** A product of its own in an organisation of its own, and an upload to it. */
async function productOf(h: Harness) {
  const slug = `org-${randomUUID().slice(0, 8)}`;
  const tenant = await h.tenant(slug, ['products:write', 'products:read']);
  const sku = `FW-${randomUUID().slice(0, 8)}`;
  await h.products.addProduct(slug, sku, { name: 'router' });
  const upload = async (payload: Buffer | string) => {
    const res = await h.request({
      method: 'POST',
      url: `/api/v1/external/products/${sku}/sbom`,
      key: tenant.key,
      headers: { 'content-type': 'application/json' },
      payload,
    });
    return res;
  };
  const uploaded = async (payload: Buffer | string) => {
    const res = await upload(payload);
    assert.equal(res.statusCode, 201, res.body);
    const sbomId: string = res.json().sbom_id;
    const components = await componentsRepo.ofRevision(h.database.db, tenant.orgId, sbomId);
    const revision = await h.database.db
      .selectFrom('sbom_revisions')
      .select('subject_cpes')
      .where('id', '=', sbomId)
      .executeTakeFirstOrThrow();
    return { sbomId, components, subjectCpes: revision.subject_cpes };
  };
  return { tenant, sku, upload, uploaded };
}

describe('CPEs read from firmware SBOMs at ingest', () => {
  const harness = useHarness();

  it('Yocto SPDX 3.0: externalIdentifier cpe23, several per package in document order; no CPE on the root', async () => {
    const p = await productOf(harness());
    const { components, subjectCpes } = await p.uploaded(firmwareSbom('yocto-core-image-minimal-qemux86-64.rootfs.spdx3.json'));
    assert.equal(components.length, 141);
    assert.equal(components.filter((c) => c.cpes !== null).length, 37);
    const busybox = components.find((c) => c.name === 'busybox');
    assert.equal(busybox?.cpes, 'cpe:2.3:*:*:busybox:1.37.0:*:*:*:*:*:*:*');
    const kernel = components.find((c) => c.name === 'kernel-6.12.38-yocto-standard');
    assert.equal(kernel?.cpes, 'cpe:2.3:*:*:linux_kernel:6.12.38:*:*:*:*:*:*:*\ncpe:2.3:*:linux:linux:6.12.38:*:*:*:*:*:*:*');
    // A package without one has none.
    assert.equal(components.find((c) => c.name === 'acl-2.3.2.tar.gz')?.cpes, null);
    // The image (the document's root) names no CPE.
    assert.equal(subjectCpes, null);
  });

  it('Yocto SPDX 2.2: a SECURITY cpe23Type reference of the described package is the subject', async () => {
    const p = await productOf(harness());
    const { components, subjectCpes } = await p.uploaded(firmwareSbom('yocto-recipe-openssl.spdx.json'));
    assert.equal(components.length, 0);
    assert.equal(subjectCpes, 'cpe:2.3:*:openssl:openssl:3.2.3:*:*:*:*:*:*:*');
  });

  it('SPDX 2: cpe23Type and cpe22Type references of the packages, other categories and types left out', async () => {
    const p = await productOf(harness());
    const doc = JSON.parse(firmwareSbom('yocto-recipe-openssl.spdx.json').toString());
    // The download package is described too: made a component here, with references of every kind.
    doc.relationships = doc.relationships.filter((r: any) => r.relatedSpdxElement !== 'SPDXRef-Download-openssl-1');
    doc.packages[1].externalRefs = [
      { referenceCategory: 'SECURITY', referenceType: 'cpe22Type', referenceLocator: 'cpe:/a:openssl:openssl:3.2.3' },
      { referenceCategory: 'SECURITY', referenceType: 'advisory', referenceLocator: 'https://nvd.nist.gov/vuln/detail/CVE-2024-0727' },
      { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:generic/openssl@3.2.3' },
      { referenceCategory: 'OTHER', referenceType: 'cpe23Type', referenceLocator: 'cpe:2.3:a:other:other:1:*:*:*:*:*:*:*' },
      { referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: 'cpe:2.3:a:openssl:openssl:3.2.3:*:*:*:*:*:*:*' },
    ];
    const { components } = await p.uploaded(JSON.stringify(doc));
    assert.equal(components.length, 1);
    assert.equal(components[0]!.purl, 'pkg:generic/openssl@3.2.3');
    assert.equal(components[0]!.cpes, 'cpe:/a:openssl:openssl:3.2.3\ncpe:2.3:a:openssl:openssl:3.2.3:*:*:*:*:*:*:*');
  });

  it('Buildroot CycloneDX: component.cpe as written; the subject (metadata.component) has none', async () => {
    const p = await productOf(harness());
    const { components, subjectCpes } = await p.uploaded(firmwareSbom('buildroot-qemu_arm_versatile.cdx.json'));
    assert.equal(components.length, 56);
    assert.equal(components.filter((c) => c.cpes !== null).length, 32);
    const busybox = components.find((c) => c.ref === 'busybox');
    assert.equal(busybox?.cpes, 'cpe:2.3:a:busybox:busybox:1.38.0:-:*:*:*:*:*:*');
    assert.equal(subjectCpes, null);
  });

  it('CycloneDX: metadata.component.cpe is the subject', async () => {
    const p = await productOf(harness());
    const doc = cycloneDx16(1);
    doc.metadata.component.cpe = 'cpe:2.3:h:tp-link:archer_c7:5.0:*:*:*:*:*:*:*';
    const { subjectCpes } = await p.uploaded(JSON.stringify(doc));
    assert.equal(subjectCpes, 'cpe:2.3:h:tp-link:archer_c7:5.0:*:*:*:*:*:*:*');
  });

  it('two components differing only in their CPE are two rows; the same component with no CPE keeps its row', async () => {
    const h = harness();
    const p = await productOf(h);
    const base = cycloneDx16(1);
    const first = await p.uploaded(JSON.stringify(base));
    const withCpe = cycloneDx16(1);
    withCpe.components[0].cpe = 'cpe:2.3:a:lib:lib-0:1.0.0:*:*:*:*:*:*:*';
    const other = cycloneDx16(1);
    other.components[0].cpe = 'cpe:2.3:a:vendor:lib-0:1.0.0:*:*:*:*:*:*:*';
    const second = await p.uploaded(JSON.stringify(withCpe));
    const third = await p.uploaded(JSON.stringify(other));
    const again = await p.uploaded(JSON.stringify(cycloneDx16(1)));
    const ids = [first, second, third, again].map((u) => u.components[0]!.id);
    assert.equal(new Set(ids.slice(0, 3)).size, 3);
    assert.equal(ids[3], ids[0]);
    assert.deepEqual(
      [first, second, third].map((u) => u.components[0]!.cpes),
      [null, 'cpe:2.3:a:lib:lib-0:1.0.0:*:*:*:*:*:*:*', 'cpe:2.3:a:vendor:lib-0:1.0.0:*:*:*:*:*:*:*'],
    );
    // The component without a CPE has the key it had before CPEs were read (its text unchanged).
    const rows = await h.database.db.selectFrom('components').select(['id', 'cpes']).where('id', 'in', ids).execute();
    assert.equal(rows.length, 3);
  });

  it('a huge CPE (64 KiB) is stored as given; an unparsable one too (the matcher names it, not the reader)', async () => {
    const p = await productOf(harness());
    const doc = cycloneDx16(2);
    const huge = `cpe:2.3:a:vendor:${'x'.repeat(64 * 1024)}:1.0:*:*:*:*:*:*:*`;
    doc.components[0].cpe = huge;
    doc.components[1].cpe = '  not a cpe at all  ';
    const { components } = await p.uploaded(JSON.stringify(doc));
    assert.equal(components[0]!.cpes, huge);
    assert.equal(components[1]!.cpes, 'not a cpe at all');
  });

  for (const [label, value] of [
    ['a newline', 'cpe:2.3:a:v:p:1.0:*:*:*:*:*:*:*\ncpe:2.3:a:evil:p:1.0:*:*:*:*:*:*:*'],
    ['a tab', 'cpe:2.3:a:v:p:1.0:*:*:*:*:*:*\t*'],
    ['DEL', 'cpe:2.3:a:v:p\u007f:1.0:*:*:*:*:*:*:*'],
  ] as const) {
    it(`a CPE holding ${label} is refused with a 422 naming where it is, and nothing is stored`, async () => {
      const h = harness();
      const p = await productOf(h);
      const doc = cycloneDx16(3);
      doc.components[2].components = [{ type: 'library', name: 'inner', version: '1', cpe: value }];
      const res = await p.upload(JSON.stringify(doc));
      assert.equal(res.statusCode, 422, res.body);
      const body = res.json();
      assert.equal(body.code, 'invalid_sbom');
      assert.deepEqual(body.details, [
        { path: '/components/2/components/0/cpe', message: 'a CPE must not contain a control character (U+0000–U+001F, U+007F)' },
      ]);
      const revisions = await h.database.db.selectFrom('sbom_revisions').select('id').where('org_id', '=', p.tenant.orgId).execute();
      assert.equal(revisions.length, 0);
    });
  }

  it('SPDX 3 and SPDX 2 control characters are refused at their identifier', async () => {
    const p = await productOf(harness());
    const doc = JSON.parse(firmwareSbom('yocto-recipe-openssl.spdx.json').toString());
    doc.packages[0].externalRefs[0].referenceLocator = 'cpe:2.3:a:openssl:openssl:3.2.3:*:*:*:*:*:*:*\r';
    doc.packages[0].externalRefs.push({ referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: 'a\u0001b' });
    const res = await p.upload(JSON.stringify(doc));
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().details[0].path, '/packages/0/externalRefs/1/referenceLocator');
    const spdx3 = JSON.parse(firmwareSbom('yocto-core-image-minimal-qemux86-64.rootfs.spdx3.json').toString());
    const at = spdx3['@graph'].findIndex((n: any) => n.type === 'software_Package' && n.name === 'busybox');
    spdx3['@graph'][at].externalIdentifier[0].identifier = 'cpe:2.3:*:*:busybox:1.37.0\n:*:*:*:*:*:*:*';
    const refused = await p.upload(JSON.stringify(spdx3));
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.json().details[0].path, `/@graph/${at}/externalIdentifier/0/identifier`);
  });
});
