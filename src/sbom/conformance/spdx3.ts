import { licenceProblem, quote } from './licences.js';
import type { ComponentFieldId, DocumentFieldId } from './profile.js';
import {
  type ComponentView,
  filenameProblem,
  type FormatReader,
  isObject,
  type Json,
  list,
  objects,
  type ProfileRules,
  text,
} from './reader.js';

// SPDX 3.0.1 JSON-LD as its schema defines it: the @graph's elements by spdxId, relationships
// as Relationship elements (from, to[], completeness), agents' contact in externalIdentifier.
// Components are the software_Package elements, the software_Sbom's root element first.

interface Spdx3Component extends ComponentView {
  node: Json;
  /** The software_File reached by hasDistributionArtifact, if any. */
  file: Json | null;
}

const NONE_ELEMENTS = new Set(['NoneElement', 'https://spdx.org/rdf/3.0.1/terms/Core/NoneElement', 'spdx:Core/NoneElement']);
const IDENTIFIER_TYPES = new Set(['packageUrl', 'cpe22', 'cpe23', 'swid']);

export function spdx3Reader(doc: Json): FormatReader<Spdx3Component> {
  const graph = objects(doc['@graph']);
  const byId = new Map<string, Json>();
  for (const node of graph) {
    const id = text(node.spdxId) ?? text(node['@id']);
    if (id !== null) byId.set(id, node);
  }
  const resolve = (value: unknown): Json | null => (isObject(value) ? value : typeof value === 'string' ? (byId.get(value) ?? null) : null);
  const ids = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : list(value).filter((v): v is string => typeof v === 'string');

  const from = new Map<string, Json[]>();
  const either = new Set<string>(); // ends of dependsOn/contains relationships
  for (const node of graph) {
    if (typeof node.relationshipType !== 'string' || typeof node.from !== 'string') continue;
    let rels = from.get(node.from);
    if (rels === undefined) {
      rels = [];
      from.set(node.from, rels);
    }
    rels.push(node);
    if (node.relationshipType === 'dependsOn' || node.relationshipType === 'contains') {
      either.add(node.from);
      for (const to of ids(node.to)) either.add(to);
    }
  }
  const relationships = (id: string, type: string) => (from.get(id) ?? []).filter((r) => r.relationshipType === type);

  const sbom = graph.find((n) => n.type === 'software_Sbom') ?? null;
  const spdxDocument = graph.find((n) => n.type === 'SpdxDocument') ?? null;
  const describing = sbom ?? spdxDocument;
  const roots = new Set(ids(describing?.rootElement));
  const creationInfo = resolve(describing?.creationInfo);

  const components: Spdx3Component[] = [];
  const packages = graph.filter((n) => n.type === 'software_Package');
  for (const node of [
    ...packages.filter((p) => roots.has(p.spdxId as string)),
    ...packages.filter((p) => !roots.has(p.spdxId as string)),
  ]) {
    const id = text(node.spdxId) ?? '';
    const file = relationships(id, 'hasDistributionArtifact')
      .flatMap((r) => ids(r.to).map((to) => byId.get(to)))
      .find((n) => n?.type === 'software_File');
    const groups = [...relationships(id, 'dependsOn'), ...relationships(id, 'contains')].some((r) =>
      ids(r.to).some((to) => !NONE_ELEMENTS.has(to)),
    );
    components.push({
      ref: id,
      name: text(node.name) ?? '',
      version: text(node.software_packageVersion) ?? '',
      logical: groups && file === undefined,
      node,
      file: file ?? null,
    });
  }

  /** Null when one of the agents carries an e-mail or URL identifier, else why not. */
  const agentsProblem = (agents: unknown, where: string): string | null => {
    const found = ids(agents)
      .map((id) => byId.get(id))
      .concat(objects(agents));
    if (found.length === 0) return `no ${where}`;
    for (const agent of found) {
      if (!agent) continue;
      for (const identifier of objects(agent.externalIdentifier)) {
        const value = text(identifier.identifier);
        if (value === null) continue;
        if (
          identifier.externalIdentifierType === 'email' ||
          identifier.externalIdentifierType === 'urlScheme' ||
          /^https?:\/\//i.test(value)
        )
          return null;
      }
    }
    return 'creator is a name, not an e-mail or URL';
  };

  const licencesProblem = (c: Spdx3Component, type: 'hasConcludedLicense' | 'hasDeclaredLicense'): string | null => {
    const targets = relationships(c.ref, type).flatMap((r) => ids(r.to).map((to) => byId.get(to) ?? null));
    if (targets.length === 0) return `no ${type} relationship`;
    for (const target of targets) {
      if (target === null) return `${type} names no element of the document`;
      if (target.type === 'expandedlicensing_NoAssertionLicense') return 'licence NOASSERTION';
      if (target.type === 'expandedlicensing_NoneLicense') return 'licence NONE';
      if (target.type !== 'simplelicensing_LicenseExpression')
        return `licence is a ${quote(String(target.type))}, not a simplelicensing_LicenseExpression`;
      const problem = licenceProblem(target.simplelicensing_licenseExpression);
      if (problem !== null) return problem;
    }
    return null;
  };

  const noFile = 'no distribution software_File (hasDistributionArtifact)';

  const document = (field: DocumentFieldId): string | null => {
    switch (field) {
      case 'document.format':
        return null;
      case 'document.creator':
        return agentsProblem(creationInfo?.createdBy, 'createdBy');
      case 'document.timestamp':
        return text(creationInfo?.created) === null ? 'no created timestamp' : null;
      case 'document.author':
        return ids(creationInfo?.createdBy).length + objects(creationInfo?.createdBy).length > 0 ? null : 'no createdBy';
      case 'document.sbom_uri':
        return sbom !== null && text(sbom.spdxId) !== null ? null : 'no software_Sbom element';
    }
  };

  const component = (field: ComponentFieldId, c: Spdx3Component, profile: ProfileRules, explain: boolean): string | null => {
    const node = c.node;
    switch (field) {
      case 'component.supplier':
        return ids(node.suppliedBy).length + objects(node.suppliedBy).length > 0 ? null : 'no suppliedBy';
      case 'component.creator':
        return agentsProblem(node.originatedBy, 'originatedBy');
      case 'component.name':
        return c.name === '' ? 'no name' : null;
      case 'component.version':
        if (c.version === '') return 'no software_packageVersion';
        return c.version === 'NOASSERTION' ? 'version NOASSERTION' : null;
      case 'component.filename':
        return c.file === null ? noFile : filenameProblem(text(c.file.name), 'name of the distribution software_File');
      case 'component.dependencies': {
        if (profile === 'ntia') return either.has(c.ref) ? null : 'named in no dependsOn or contains relationship';
        const rels = [...relationships(c.ref, 'dependsOn'), ...relationships(c.ref, 'contains')];
        if (rels.length === 0) return 'no dependsOn or contains relationship';
        return rels.some((r) => r.completeness === 'complete' || r.completeness === 'incomplete')
          ? null
          : 'dependency completeness not stated';
      }
      case 'component.distribution_licences':
        return licencesProblem(c, 'hasConcludedLicense');
      case 'component.original_licences':
        return licencesProblem(c, 'hasDeclaredLicense');
      case 'component.hash_sha512': {
        if (c.file === null) return noFile;
        const found = objects(c.file.verifiedUsing)
          .map((h) => text(h.algorithm))
          .filter((a): a is string => a !== null);
        if (found.includes('sha512')) return null;
        if (!explain) return 'no SHA-512';
        return found.length === 0 ? 'no hash' : `only ${[...new Set(found)].join(', ')}`;
      }
      case 'component.executable':
      case 'component.archive':
      case 'component.structured':
        return c.file === null ? noFile : null;
      case 'component.source_uri':
        return objects(node.externalRef).some(
          (r) => (r.externalRefType === 'vcs' || r.externalRefType === 'sourceArtifact') && list(r.locator).length > 0,
        )
          ? null
          : 'no vcs or sourceArtifact externalRef';
      case 'component.deployable_uri':
        return text(node.software_downloadLocation) === null ? 'no software_downloadLocation' : null;
      case 'component.other_identifiers':
        if (text(node.software_packageUrl) !== null) return null;
        return objects(node.externalIdentifier).some((i) => IDENTIFIER_TYPES.has(String(i.externalIdentifierType)))
          ? null
          : 'no purl, CPE or SWID';
    }
  };

  const vulnerabilities = graph.some((n) => n.type === 'security_Vulnerability');
  return { document, components, component, vulnerabilities };
}
