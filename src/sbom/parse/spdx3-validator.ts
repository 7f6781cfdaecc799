import type { ErrorDetail } from '../../errors.js';
import { isObject, objectsOf, pointer, Problems, requireDateTime, requireString, UniqueIds, type Json } from './json-checks.js';

// No npm package validates SPDX 3.0 JSON-LD either: this checks the structure ingest relies on
// (@graph of typed elements with spdxId and creationInfo, CreationInfo nodes, an SpdxDocument
// naming its root elements, named software_Package elements).

export function graphOf(doc: Json): Json[] {
  return (doc['@graph'] as unknown[]).filter(isObject);
}

/** Root element ids: a single IRI or an array of them. */
export function idList(value: unknown): string[] | null {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  return null;
}

function creationInfoNode(p: Problems, node: Json, at: string): void {
  requireDateTime(p, node, 'created', at);
  requireString(p, node, 'specVersion', at);
  const createdBy = node.createdBy;
  if (!Array.isArray(createdBy) || createdBy.length === 0) p.add(pointer(at, 'createdBy'), 'must be a non-empty array');
}

export function validateSpdx3(doc: Json): ErrorDetail[] {
  const p = new Problems();
  const graph = doc['@graph'];
  if (!Array.isArray(graph) || graph.length === 0) {
    p.add('/@graph', graph === undefined ? "must have required property '@graph'" : 'must be a non-empty array');
    return p.details;
  }
  const creationInfos = new Set<string>();
  for (const node of graph.filter(isObject)) {
    if (node.type === 'CreationInfo' && typeof node['@id'] === 'string') creationInfos.add(node['@id']);
  }

  const ids = new UniqueIds();
  let documents = 0;
  for (const [node, at] of objectsOf(p, graph, '/@graph')) {
    const type = requireString(p, node, 'type', at);
    if (type === undefined) continue;
    if (type === 'CreationInfo') {
      // A CreationInfo no element names needs no id: OpenEmbedded's create-spdx writes those without one.
      if (node['@id'] !== undefined) ids.check(p, requireString(p, node, '@id', at), pointer(at, '@id'));
      creationInfoNode(p, node, at);
      continue;
    }
    const id = requireString(p, node, 'spdxId', at);
    ids.check(p, id, pointer(at, 'spdxId'));
    const info = node.creationInfo;
    if (info === undefined) p.add(pointer(at, 'creationInfo'), "must have required property 'creationInfo'");
    else if (typeof info === 'string') {
      if (!creationInfos.has(info)) p.add(pointer(at, 'creationInfo'), `names no CreationInfo node of the @graph ("${info}")`);
    } else if (isObject(info)) creationInfoNode(p, info, pointer(at, 'creationInfo'));
    else p.add(pointer(at, 'creationInfo'), 'must be a CreationInfo reference or object');

    if (type === 'SpdxDocument' || type === 'software_Sbom') {
      if (type === 'SpdxDocument') documents++;
      const roots = idList(node.rootElement);
      if (roots === null || roots.length === 0) p.add(pointer(at, 'rootElement'), 'must name at least one element');
    }
    if (type === 'software_Package') {
      requireString(p, node, 'name', at);
      for (const f of ['software_packageVersion', 'software_packageUrl', 'software_primaryPurpose']) {
        if (node[f] !== undefined && typeof node[f] !== 'string') p.add(pointer(at, f), 'must be string');
      }
    }
  }
  if (documents === 0 && !p.full) p.add('/@graph', 'must contain an SpdxDocument element');
  return p.details;
}
