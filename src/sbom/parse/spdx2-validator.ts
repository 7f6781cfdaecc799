import type { ErrorDetail } from '../../errors.js';
import {
  isObject,
  objectsOf,
  optionalArray,
  optionalString,
  pointer,
  Problems,
  requireDateTime,
  requireString,
  UniqueIds,
  type Json,
} from './json-checks.js';

// No maintained npm package validates SPDX documents, so this checks the fields SPDX 2.2/2.3
// make mandatory (and the types of those we read), not every optional field.

// The spec's idstring is [A-Za-z0-9.-]+, but its JSON schema does not enforce it and real tools
// (npm sbom, for one) emit underscores: only the prefix is required.
const SPDX_ID = /^SPDXRef-\S+$/;
const CREATOR = /^(Person|Organization|Tool):\s*\S/;

function spdxId(p: Problems, obj: Json, path: string, ids: UniqueIds): void {
  const id = requireString(p, obj, 'SPDXID', path);
  if (id === undefined) return;
  if (!SPDX_ID.test(id)) p.add(pointer(path, 'SPDXID'), 'must start with SPDXRef- followed by an id');
  ids.check(p, id, pointer(path, 'SPDXID'));
}

function pairs(p: Problems, obj: Json, key: string, path: string, fields: string[], minItems = 0): void {
  const items = optionalArray(p, obj, key, path);
  if (obj[key] !== undefined && Array.isArray(obj[key]) && items.length < minItems)
    p.add(pointer(path, key), `must have at least ${minItems} item`);
  for (const [item, at] of objectsOf(p, items, pointer(path, key))) for (const f of fields) requireString(p, item, f, at);
}

function creationInfo(p: Problems, doc: Json): void {
  const info = doc.creationInfo;
  if (!isObject(info)) {
    p.add('/creationInfo', info === undefined ? "must have required property 'creationInfo'" : 'must be object');
    return;
  }
  requireDateTime(p, info, 'created', '/creationInfo');
  const creators = info.creators;
  if (!Array.isArray(creators) || creators.length === 0) {
    p.add('/creationInfo/creators', 'must be a non-empty array');
    return;
  }
  creators.forEach((c, i) => {
    if (typeof c !== 'string' || !CREATOR.test(c))
      p.add(`/creationInfo/creators/${i}`, 'must be "Person: …", "Organization: …" or "Tool: …"');
  });
}

export function validateSpdx2(version: '2.2' | '2.3', doc: Json): ErrorDetail[] {
  const p = new Problems();
  const strict22 = version === '2.2';
  if (doc.dataLicense !== 'CC0-1.0') p.add('/dataLicense', 'must be "CC0-1.0"');
  if (doc.SPDXID !== 'SPDXRef-DOCUMENT') p.add('/SPDXID', 'must be "SPDXRef-DOCUMENT"');
  requireString(p, doc, 'name', '');
  const namespace = requireString(p, doc, 'documentNamespace', '');
  if (namespace !== undefined && (!/^[a-z][a-z0-9+.-]*:/i.test(namespace) || namespace.includes('#'))) {
    p.add('/documentNamespace', 'must be an absolute URI without a # part');
  }
  creationInfo(p, doc);
  optionalArray(p, doc, 'documentDescribes', '').forEach((d, i) => {
    if (typeof d !== 'string') p.add(`/documentDescribes/${i}`, 'must be string');
  });
  pairs(p, doc, 'externalDocumentRefs', '', ['externalDocumentId', 'spdxDocument']);

  const ids = new UniqueIds();
  for (const [pkg, at] of objectsOf(p, optionalArray(p, doc, 'packages', ''), '/packages')) {
    requireString(p, pkg, 'name', at);
    spdxId(p, pkg, at, ids);
    requireString(p, pkg, 'downloadLocation', at);
    // SPDX 2.2 makes these mandatory; 2.3 made them optional.
    if (strict22) for (const f of ['licenseConcluded', 'licenseDeclared', 'copyrightText']) requireString(p, pkg, f, at);
    for (const f of ['versionInfo', 'licenseConcluded', 'licenseDeclared', 'primaryPackagePurpose']) optionalString(p, pkg, f, at);
    if (pkg.filesAnalyzed !== undefined && typeof pkg.filesAnalyzed !== 'boolean') p.add(pointer(at, 'filesAnalyzed'), 'must be boolean');
    pairs(p, pkg, 'externalRefs', at, ['referenceCategory', 'referenceType', 'referenceLocator']);
    pairs(p, pkg, 'checksums', at, ['algorithm', 'checksumValue']);
  }
  for (const [file, at] of objectsOf(p, optionalArray(p, doc, 'files', ''), '/files')) {
    spdxId(p, file, at, ids);
    requireString(p, file, 'fileName', at);
    if (file.checksums === undefined) p.add(pointer(at, 'checksums'), "must have required property 'checksums'");
    pairs(p, file, 'checksums', at, ['algorithm', 'checksumValue'], 1);
    if (strict22) for (const f of ['licenseConcluded', 'copyrightText']) requireString(p, file, f, at);
  }
  for (const [snippet, at] of objectsOf(p, optionalArray(p, doc, 'snippets', ''), '/snippets')) {
    spdxId(p, snippet, at, ids);
    requireString(p, snippet, 'snippetFromFile', at);
  }
  pairs(p, doc, 'relationships', '', ['spdxElementId', 'relationshipType', 'relatedSpdxElement']);
  pairs(p, doc, 'hasExtractedLicensingInfos', '', ['licenseId', 'extractedText']);
  return p.details;
}
