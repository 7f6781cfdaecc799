import type { ConformanceProfile } from '../profile.js';

// NTIA, "The Minimum Elements For a Software Bill of Materials (SBOM)", July 2021: the data fields
// (supplier, component name, version, other unique identifiers, dependency relationship, author of
// the SBOM data, timestamp). No format floor: SPDX 2 documents are checked too.

export const NTIA_MINIMUM: ConformanceProfile = {
  id: 'ntia-minimum',
  version: '2021-07-12',
  title: 'NTIA minimum elements (2021)',
  rules: 'ntia',
  floor: null,
  forbidsVulnerabilities: false,
  componentLevels: false,
  documentFields: [
    {
      field: 'document.timestamp',
      level: 'required',
      mapping: { cyclonedx: 'metadata.timestamp', spdx3: 'CreationInfo.created', spdx2: 'creationInfo.created' },
    },
    {
      field: 'document.author',
      level: 'required',
      mapping: {
        cyclonedx: 'metadata.authors, metadata.manufacturer or metadata.supplier',
        spdx3: 'CreationInfo.createdBy',
        spdx2: 'creationInfo.creators with a Person: or Organization:',
      },
    },
  ],
  componentFields: [
    {
      field: 'component.supplier',
      level: 'required',
      mapping: {
        cyclonedx: 'supplier.name, manufacturer.name or publisher',
        spdx3: 'suppliedBy',
        spdx2: 'supplier other than NOASSERTION',
      },
    },
    { field: 'component.name', level: 'required', mapping: { cyclonedx: 'name', spdx3: 'name', spdx2: 'name' } },
    {
      field: 'component.version',
      level: 'required',
      mapping: { cyclonedx: 'version', spdx3: 'software_packageVersion', spdx2: 'versionInfo other than NOASSERTION' },
    },
    {
      field: 'component.dependencies',
      level: 'required',
      mapping: {
        cyclonedx: 'named in a dependencies[] entry (its ref or a dependsOn)',
        spdx3: 'a dependsOn or contains Relationship naming it on either side',
        spdx2: 'a DEPENDS_ON, DEPENDENCY_OF, CONTAINS or CONTAINED_BY relationship naming it on either side',
      },
    },
    {
      field: 'component.other_identifiers',
      level: 'required',
      mapping: {
        cyclonedx: 'purl, cpe or swid',
        spdx3: 'software_packageUrl or externalIdentifier packageUrl, cpe22, cpe23, swid',
        spdx2: 'externalRefs purl, cpe22Type, cpe23Type or swid',
      },
    },
  ],
};
