import { licenceProblem, quote } from './licences.js';
import type { ComponentFieldId, DocumentFieldId } from './profile.js';
import {
  type ComponentView,
  filenameProblem,
  type FormatReader,
  isObject,
  type ProfileRules,
  type Json,
  list,
  someObject,
  objects,
  text,
} from './reader.js';

// CycloneDX, read with the 1.6 mappings of TR-03183-2 §8.2 whatever the document's version (a
// field its version cannot express is missing). The subject (metadata.component) is a component.

interface CycloneDxComponent extends ComponentView {
  node: Json;
  /** Its properties by name (the first of each name), read once for every field and profile. */
  properties?: Map<string, string | null>;
}

const BSI = {
  filename: 'bsi:component:filename',
  executable: 'bsi:component:executable',
  archive: 'bsi:component:archive',
  structured: 'bsi:component:structured',
} as const;

const NO_PROPERTY = {
  executable: `no ${BSI.executable} property`,
  archive: `no ${BSI.archive} property`,
  structured: `no ${BSI.structured} property`,
} as const;

const NO_FILENAME = `no ${BSI.filename} property`;

const ALLOWED: Record<'executable' | 'archive' | 'structured', readonly string[]> = {
  executable: ['executable', 'non-executable'],
  archive: ['archive', 'no archive'],
  structured: ['structured', 'unstructured'],
};

/** Null when the organisational entity (a manufacturer) has a URL or a contact's e-mail, else why not. */
function creatorProblem(entity: unknown, where: string): string | null {
  if (!isObject(entity)) return where === 'manufacturer' ? 'no manufacturer' : `no ${where}`;
  if (Array.isArray(entity.url) && entity.url.some((u) => text(u) !== null)) return null;
  if (someObject(entity.contact, (c) => text(c.email) !== null)) return null;
  return text(entity.name) !== null || someObject(entity.contact, (c) => text(c.name) !== null)
    ? 'creator is a name, not an e-mail or URL'
    : `${where} has no e-mail or URL`;
}

function property(c: CycloneDxComponent, name: string): string | null | undefined {
  if (c.properties === undefined) {
    c.properties = new Map();
    const list = c.node.properties;
    if (Array.isArray(list)) {
      for (const p of list) {
        if (!isObject(p) || typeof p.name !== 'string' || c.properties.has(p.name)) continue;
        c.properties.set(p.name, typeof p.value === 'string' ? p.value.trim() : null);
      }
    }
  }
  return c.properties.get(name);
}

/** Why the licence entries of one acknowledgement do not give an SPDX expression, or null. */
function licencesProblem(node: Json, acknowledgement: 'concluded' | 'declared'): string | null {
  const licences = node.licenses;
  if (!Array.isArray(licences) || licences.length === 0) return 'no licence';
  let entries = 0;
  for (const entry of licences) {
    if (!isObject(entry) || (isObject(entry.license) ? entry.license.acknowledgement : entry.acknowledgement) !== acknowledgement) continue;
    entries++;
    let problem: string | null;
    if (entry.expression !== undefined) problem = licenceProblem(entry.expression);
    else if (isObject(entry.license) && entry.license.id !== undefined) problem = licenceProblem(entry.license.id);
    else if (isObject(entry.license)) {
      const name = text(entry.license.name);
      problem = name !== null && /^LicenseRef-[A-Za-z0-9.-]+$/.test(name) ? null : licenceProblem(name ?? '');
      if (problem === null && name !== null && !name.startsWith('LicenseRef-')) problem = 'a licence name, not an SPDX identifier';
    } else problem = 'an empty licence';
    if (problem !== null) return problem;
  }
  return entries > 0 ? null : NO_ACKNOWLEDGEMENT[acknowledgement];
}

const NO_ACKNOWLEDGEMENT = {
  concluded: 'no licence with acknowledgement concluded',
  declared: 'no licence with acknowledgement declared',
} as const;

function algorithms(hashes: unknown): string[] {
  return objects(hashes)
    .map((h) => text(h.alg))
    .filter((a): a is string => a !== null);
}

export function cycloneDxReader(doc: Json): FormatReader<CycloneDxComponent> {
  const metadata = isObject(doc.metadata) ? doc.metadata : {};
  const components: CycloneDxComponent[] = [];
  const dependencyEntries = new Map<string, number>(); // ref → its dependsOn count
  const named = new Set<string>(); // refs named in any dependencies[] entry, either side
  for (const d of objects(doc.dependencies)) {
    const ref = text(d.ref);
    if (ref === null) continue;
    const on = list(d.dependsOn);
    dependencyEntries.set(ref, (dependencyEntries.get(ref) ?? 0) + on.length);
    named.add(ref);
    for (const r of on) if (typeof r === 'string') named.add(r);
  }
  let coversAll = false;
  const covered = new Set<string>();
  for (const c of objects(doc.compositions)) {
    const aggregate = text(c.aggregate);
    if (aggregate === null || aggregate === 'not_specified') continue;
    const refs = [...list(c.assemblies), ...list(c.dependencies)];
    if (refs.length === 0 && list(c.vulnerabilities).length === 0) coversAll = true;
    for (const r of refs) if (typeof r === 'string') covered.add(r);
  }
  const add = (node: Json, hasChildren: boolean) => {
    const ref = text(node['bom-ref']) ?? '';
    const groups = hasChildren || (ref !== '' && (dependencyEntries.get(ref) ?? 0) > 0);
    const deployable = someObject(node.externalReferences, (r) => r.type === 'distribution');
    components.push({
      ref,
      name: text(node.name) ?? '',
      version: text(node.version) ?? '',
      logical: groups && !deployable,
      node,
    });
  };
  if (isObject(metadata.component)) add(metadata.component, list(metadata.component.components).length > 0);
  const walk = (value: unknown) => {
    for (const c of objects(value)) {
      add(c, list(c.components).length > 0);
      walk(c.components);
    }
  };
  walk(doc.components);

  const document = (field: DocumentFieldId): string | null => {
    switch (field) {
      case 'document.format':
        return null; // the evaluator compares versions
      case 'document.creator':
        return creatorProblem(metadata.manufacturer, 'metadata.manufacturer');
      case 'document.timestamp':
        return text(metadata.timestamp) === null ? 'no metadata.timestamp' : null;
      case 'document.author':
        if (objects(metadata.authors).length > 0 || isObject(metadata.manufacturer) || isObject(metadata.supplier)) return null;
        return 'no metadata.authors, manufacturer or supplier';
      case 'document.sbom_uri':
        return text(doc.serialNumber) === null ? 'no serialNumber' : null;
    }
  };

  const bsiProperty = (c: CycloneDxComponent, key: 'executable' | 'archive' | 'structured'): string | null => {
    const value = property(c, BSI[key]);
    if (value === undefined) return NO_PROPERTY[key];
    if (value === null || !ALLOWED[key].includes(value)) {
      return `${BSI[key]} is ${value === null ? 'not a string' : quote(value)}, not ${ALLOWED[key].map((a) => JSON.stringify(a)).join(' or ')}`;
    }
    return null;
  };

  const component = (field: ComponentFieldId, c: CycloneDxComponent, profile: ProfileRules, explain: boolean): string | null => {
    const node = c.node;
    switch (field) {
      case 'component.supplier':
        if (text((node.supplier as Json | undefined)?.name) !== null || text((node.manufacturer as Json | undefined)?.name) !== null)
          return null;
        return text(node.publisher) !== null ? null : 'no supplier, manufacturer or publisher';
      case 'component.creator':
        return creatorProblem(node.manufacturer, 'manufacturer');
      case 'component.name':
        return c.name === '' ? 'no name' : null;
      case 'component.version':
        if (c.version === '') return 'no version';
        return c.version === 'NOASSERTION' ? 'version NOASSERTION' : null;
      case 'component.filename': {
        const value = property(c, BSI.filename);
        return value === undefined ? NO_FILENAME : filenameProblem(value, `${BSI.filename} property`);
      }
      case 'component.dependencies':
        if (profile === 'ntia') return c.ref !== '' && named.has(c.ref) ? null : 'named in no dependencies entry';
        if (c.ref === '') return 'no bom-ref, so no dependencies entry';
        if (!dependencyEntries.has(c.ref)) return 'no dependencies entry';
        return coversAll || covered.has(c.ref) ? null : 'dependency completeness not stated';
      case 'component.distribution_licences':
        return licencesProblem(node, 'concluded');
      case 'component.original_licences':
        return licencesProblem(node, 'declared');
      case 'component.hash_sha512': {
        const sha512 = (h: Json) => h.alg === 'SHA-512';
        if (someObject(node.hashes, sha512)) return null;
        if (someObject(node.externalReferences, (r) => r.type === 'distribution' && someObject(r.hashes, sha512))) return null;
        if (!explain) return 'no SHA-512';
        const found = [
          ...algorithms(node.hashes),
          ...objects(node.externalReferences).flatMap((r) => (r.type === 'distribution' ? algorithms(r.hashes) : [])),
        ];
        return found.length === 0 ? 'no hash' : `only ${[...new Set(found)].join(', ')}`;
      }
      case 'component.executable':
        return bsiProperty(c, 'executable');
      case 'component.archive':
        return bsiProperty(c, 'archive');
      case 'component.structured':
        return bsiProperty(c, 'structured');
      case 'component.source_uri':
        return someObject(node.externalReferences, (r) => (r.type === 'source-distribution' || r.type === 'vcs') && text(r.url) !== null)
          ? null
          : 'no source-distribution or vcs reference';
      case 'component.deployable_uri':
        return someObject(node.externalReferences, (r) => r.type === 'distribution' && text(r.url) !== null)
          ? null
          : 'no distribution reference';
      case 'component.other_identifiers':
        if (text(node.purl) !== null || text(node.cpe) !== null || isObject(node.swid)) return null;
        return 'no purl, CPE or SWID';
    }
  };
  return { document, components, component, vulnerabilities: list(doc.vulnerabilities).length > 0 };
}
