import type { ConformanceProfile } from '../profile.js';

// BSI TR-03183-2 "Cyber Resilience Requirements for Manufacturers and Products, Part 2: Software
// Bill of Materials (SBOM)", version 2.1.0 of 2025-08-20: §5.1 format floor, §5.2.1–5.2.2 required
// SBOM and component fields, §5.3 additional fields, §5.4 what an SBOM must not hold
// (vulnerability information), §6.1 logical components, §8.2 the mappings to CycloneDX 1.6 and
// SPDX 3.0.1. Where the TR leaves a judgement, sbom-conformance.md ("How the TR is read") decides.

export const BSI_TR_03183_2_V2_1: ConformanceProfile = {
  id: 'bsi-tr-03183-2-v2.1',
  version: '2.1.0',
  title: 'BSI TR-03183-2 v2.1.0',
  rules: 'tr',
  floor: { cyclonedx: '1.6', spdx3: '3.0.1', spdx2: null },
  forbidsVulnerabilities: true,
  componentLevels: true,
  documentFields: [
    {
      field: 'document.format',
      level: 'required',
      mapping: { cyclonedx: 'specVersion ≥ 1.6', spdx3: 'SPDX ≥ 3.0.1', spdx2: 'below the floor' },
    },
    {
      field: 'document.creator',
      level: 'required',
      mapping: {
        cyclonedx: 'metadata.manufacturer.url[] or .contact[].email',
        spdx3: 'CreationInfo.createdBy → Agent with an email or URL externalIdentifier',
      },
    },
    { field: 'document.timestamp', level: 'required', mapping: { cyclonedx: 'metadata.timestamp', spdx3: 'CreationInfo.created' } },
    {
      field: 'document.sbom_uri',
      level: 'additional',
      mapping: { cyclonedx: 'serialNumber', spdx3: 'the software_Sbom element’s spdxId' },
    },
  ],
  componentFields: [
    {
      field: 'component.creator',
      level: 'required',
      logical: true,
      mapping: {
        cyclonedx: 'manufacturer.url[] or .contact[].email',
        spdx3: 'originatedBy → Agent with an email or URL externalIdentifier',
      },
    },
    { field: 'component.name', level: 'required', logical: true, mapping: { cyclonedx: 'name', spdx3: 'name' } },
    { field: 'component.version', level: 'required', logical: true, mapping: { cyclonedx: 'version', spdx3: 'software_packageVersion' } },
    {
      field: 'component.filename',
      level: 'required',
      mapping: { cyclonedx: 'property bsi:component:filename', spdx3: 'name of the software_File reached by hasDistributionArtifact' },
    },
    {
      field: 'component.dependencies',
      level: 'required',
      logical: true,
      mapping: {
        cyclonedx: 'an entry in dependencies[] and a compositions[] aggregate other than not_specified covering it',
        spdx3: 'a dependsOn or contains Relationship from it with completeness',
      },
    },
    {
      field: 'component.distribution_licences',
      level: 'required',
      logical: true,
      mapping: { cyclonedx: 'licenses[] with acknowledgement concluded', spdx3: 'hasConcludedLicense → simplelicensing_LicenseExpression' },
    },
    {
      field: 'component.hash_sha512',
      level: 'required',
      mapping: {
        cyclonedx: 'SHA-512 in externalReferences[type=distribution].hashes or in hashes',
        spdx3: 'verifiedUsing sha512 of the distribution software_File',
      },
    },
    {
      field: 'component.executable',
      level: 'required',
      mapping: { cyclonedx: 'property bsi:component:executable', spdx3: 'software_additionalPurpose of the distribution software_File' },
    },
    {
      field: 'component.archive',
      level: 'required',
      mapping: { cyclonedx: 'property bsi:component:archive', spdx3: 'software_additionalPurpose of the distribution software_File' },
    },
    {
      field: 'component.structured',
      level: 'required',
      mapping: { cyclonedx: 'property bsi:component:structured', spdx3: 'software_additionalPurpose of the distribution software_File' },
    },
    {
      field: 'component.source_uri',
      level: 'additional',
      mapping: { cyclonedx: 'externalReferences[type=source-distribution or vcs].url', spdx3: 'externalRef of type vcs or sourceArtifact' },
    },
    {
      field: 'component.deployable_uri',
      level: 'additional',
      mapping: { cyclonedx: 'externalReferences[type=distribution].url', spdx3: 'software_downloadLocation' },
    },
    {
      field: 'component.other_identifiers',
      level: 'additional',
      logical: true,
      mapping: {
        cyclonedx: 'purl, cpe or swid',
        spdx3: 'software_packageUrl, externalIdentifier of type packageUrl, cpe22, cpe23 or swid',
      },
    },
    {
      field: 'component.original_licences',
      level: 'additional',
      logical: true,
      mapping: { cyclonedx: 'licenses[] with acknowledgement declared', spdx3: 'hasDeclaredLicense → simplelicensing_LicenseExpression' },
    },
  ],
};
