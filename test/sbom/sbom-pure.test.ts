import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { detectFormat } from '../../src/sbom/detect-format.js';
import { normaliseSpdx2 } from '../../src/sbom/normalise.js';
import { findDuplicate, withLinearUniqueItems } from '../../src/sbom/unique-items.js';

describe('findDuplicate (linear uniqueItems)', () => {
  it('finds equal items whatever their key order, and only equal ones', () => {
    assert.equal(findDuplicate([{ a: 1, b: [1, { x: 1, y: 2 }] }, { a: 1, b: [1, { x: 1, y: 3 }] }]), null);
    assert.deepEqual(findDuplicate([{ a: 1, b: [1, { x: 1, y: 2 }] }, { c: 0 }, { b: [1, { y: 2, x: 1 }], a: 1 }]), { index: 2, firstIndex: 0 });
    assert.equal(findDuplicate([1, '1', true, 'true', null, 'null']), null);
    assert.deepEqual(findDuplicate(['a', 'b', 'a']), { index: 2, firstIndex: 0 });
    assert.equal(findDuplicate([[1, 2], [2, 1]]), null, 'array order matters');
    assert.equal(findDuplicate([{ 'a\u0000': 1, b: 2 }, { a: 1, '\u0000b': 2 }]), null, 'keys holding NUL do not collide');
  });

  it('moves uniqueItems to the linear keyword everywhere in a schema copy', () => {
    const schema = { properties: { a: { type: 'array', uniqueItems: true, items: { properties: { b: { uniqueItems: true } } } } } };
    const copy = withLinearUniqueItems(schema);
    assert.ok(!JSON.stringify(copy).includes('"uniqueItems"'));
    assert.equal(JSON.stringify(copy).match(/x-unique-items/g)!.length, 2);
    assert.equal(schema.properties.a.uniqueItems, true, 'the original is untouched');
  });
});

describe('detectFormat', () => {
  const code = (doc: unknown) => {
    try {
      detectFormat(doc);
      return 'ok';
    } catch (e) {
      return (e as AppError).code;
    }
  };
  it('names format and version, or says why not', () => {
    assert.deepEqual(detectFormat({ bomFormat: 'CycloneDX', specVersion: '1.7' }), { kind: 'cyclonedx', format: 'cyclonedx', specVersion: '1.7' });
    assert.deepEqual(detectFormat({ spdxVersion: 'SPDX-2.2' }), { kind: 'spdx2', format: 'spdx', specVersion: '2.2' });
    assert.deepEqual(detectFormat({ '@context': ['https://spdx.org/rdf/3.0.0/spdx-context.jsonld'] }), { kind: 'spdx3', format: 'spdx', specVersion: '3.0.0' });
    assert.equal(code({ bomFormat: 'CycloneDX', specVersion: 1.4 }), 'invalid_sbom');
    assert.equal(code({ bomFormat: 'CycloneDX', specVersion: '1.0' }), 'unsupported_sbom_format');
    assert.equal(code({ spdxVersion: 'SPDX-3.0' }), 'unsupported_sbom_format');
    assert.equal(code([]), 'unsupported_sbom_format');
  });
});

describe('normaliseSpdx2', () => {
  it('treats DESCRIBES and DESCRIBED_BY relationships like documentDescribes', () => {
    const pkg = (id: string, version?: string) => ({ SPDXID: id, name: id, versionInfo: version, licenseDeclared: 'MIT', licenseConcluded: 'NOASSERTION' });
    const doc = {
      packages: [pkg('SPDXRef-lib'), pkg('SPDXRef-app', '1.2'), pkg('SPDXRef-fw', '9')],
      relationships: [
        { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-app' },
        { spdxElementId: 'SPDXRef-fw', relationshipType: 'DESCRIBED_BY', relatedSpdxElement: 'SPDXRef-DOCUMENT' },
      ],
    };
    const result = normaliseSpdx2(doc);
    assert.equal(result.releaseVersion, '1.2');
    assert.deepEqual(result.components, [{ name: 'SPDXRef-lib', version: null, purl: null, type: null, licenses: ['MIT'], ref: 'SPDXRef-lib' }]);
  });
});
