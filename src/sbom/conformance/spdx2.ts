import type { ComponentFieldId, DocumentFieldId } from './profile.js';
import { type ComponentView, type FormatReader, isObject, type Json, objects, text } from './reader.js';

// SPDX 2.2/2.3: below TR-03183-2's floor (the TR maps only SPDX 3.0.1), read for the NTIA
// minimum elements. Every package is a component, the described ones first.

interface Spdx2Component extends ComponentView {
  node: Json;
}

const DEPENDENCY_TYPES = new Set(['DEPENDS_ON', 'DEPENDENCY_OF', 'CONTAINS', 'CONTAINED_BY']);
const IDENTIFIER_TYPES = new Set(['purl', 'cpe22Type', 'cpe23Type', 'swid']);

export function spdx2Reader(doc: Json): FormatReader<Spdx2Component> {
  const creationInfo = isObject(doc.creationInfo) ? doc.creationInfo : {};
  const described = new Set<string>(
    Array.isArray(doc.documentDescribes) ? doc.documentDescribes.filter((d): d is string => typeof d === 'string') : [],
  );
  const related = new Set<string>();
  for (const r of objects(doc.relationships)) {
    if (r.relationshipType === 'DESCRIBES' && r.spdxElementId === 'SPDXRef-DOCUMENT') described.add(String(r.relatedSpdxElement));
    if (DEPENDENCY_TYPES.has(String(r.relationshipType))) {
      related.add(String(r.spdxElementId));
      related.add(String(r.relatedSpdxElement));
    }
  }
  const packages = objects(doc.packages);
  const ordered = [
    ...packages.filter((p) => described.has(p.SPDXID as string)),
    ...packages.filter((p) => !described.has(p.SPDXID as string)),
  ];
  const components: Spdx2Component[] = ordered.map((node) => ({
    ref: text(node.SPDXID) ?? '',
    name: text(node.name) ?? '',
    version: text(node.versionInfo) ?? '',
    logical: false,
    node,
  }));

  const document = (field: DocumentFieldId): string | null => {
    switch (field) {
      case 'document.timestamp':
        return text(creationInfo.created) === null ? 'no creationInfo.created' : null;
      case 'document.author': {
        const creators = Array.isArray(creationInfo.creators) ? creationInfo.creators : [];
        return creators.some((c) => typeof c === 'string' && /^(Person|Organization):\s*\S/.test(c))
          ? null
          : 'no Person: or Organization: creator';
      }
      default:
        return `${field} is not read from SPDX 2`;
    }
  };

  const component = (field: ComponentFieldId, c: Spdx2Component): string | null => {
    const node = c.node;
    switch (field) {
      case 'component.supplier': {
        const supplier = text(node.supplier);
        if (supplier === null) return 'no supplier';
        return supplier === 'NOASSERTION' ? 'supplier NOASSERTION' : null;
      }
      case 'component.name':
        return c.name === '' ? 'no name' : null;
      case 'component.version':
        if (c.version === '') return 'no versionInfo';
        return c.version === 'NOASSERTION' ? 'version NOASSERTION' : null;
      case 'component.dependencies':
        return related.has(c.ref) ? null : 'named in no DEPENDS_ON, DEPENDENCY_OF, CONTAINS or CONTAINED_BY relationship';
      case 'component.other_identifiers':
        return objects(node.externalRefs).some((r) => IDENTIFIER_TYPES.has(String(r.referenceType))) ? null : 'no purl, CPE or SWID';
      default:
        return `${field} is not read from SPDX 2`;
    }
  };

  const vulnerabilities = packages.some((p) =>
    objects(p.externalRefs).some((r) => r.referenceCategory === 'SECURITY' && r.referenceType === 'advisory'),
  );
  return { document, components, component, vulnerabilities };
}
