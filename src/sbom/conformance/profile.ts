// What a profile is: data. Each profile module lists its fields in the order of the spec's field
// ids, with the level each holds and, for a component field, whether a logical component needs it
// too. The mappings are written out for the documentation and checked by the format readers
// (cyclonedx.ts, spdx3.ts, spdx2.ts), which know each field id.

/** Every field id of the spec, in the order reports list them (sbom-conformance.md, "Field ids"). */
export const FIELD_ORDER = [
  'document.format',
  'document.creator',
  'document.timestamp',
  'document.author',
  'document.sbom_uri',
  'component.supplier',
  'component.creator',
  'component.name',
  'component.version',
  'component.filename',
  'component.dependencies',
  'component.distribution_licences',
  'component.hash_sha512',
  'component.executable',
  'component.archive',
  'component.structured',
  'component.source_uri',
  'component.deployable_uri',
  'component.other_identifiers',
  'component.original_licences',
] as const;

export type FieldId = (typeof FIELD_ORDER)[number];
export type DocumentFieldId = Extract<FieldId, `document.${string}`>;
export type ComponentFieldId = Extract<FieldId, `component.${string}`>;
/** Whose reading of a field applies where the profiles differ: the TR's mappings or the NTIA's elements. */
export type ProfileRules = 'tr' | 'ntia';

export type FieldLevel = 'required' | 'additional';

export interface ProfileField<F extends FieldId = FieldId> {
  field: F;
  level: FieldLevel;
  /** Component fields: whether a logical component (one that groups others, with no deployable form) needs it too. */
  logical?: boolean;
  /** Where the profile's source says the field is, per format, as the documentation shows it. */
  mapping: { cyclonedx: string; spdx3: string; spdx2?: string };
}

export interface ConformanceProfile {
  id: string;
  /** Written into every report: a profile that changes is a new version, and old reports keep theirs. */
  version: string;
  title: string;
  /** Whose reading applies where a field id means different things (reader.ts). */
  rules: ProfileRules;
  /** The oldest format versions the profile accepts; an older document is below the floor. Null: no floor. */
  floor: { cyclonedx: string; spdx3: string; spdx2: string | null } | null;
  documentFields: ProfileField<DocumentFieldId>[];
  componentFields: ProfileField<ComponentFieldId>[];
  /** Whether the profile forbids vulnerability information in the SBOM (finding vulnerabilities_in_sbom). */
  forbidsVulnerabilities: boolean;
  /** Whether components are split into logical and fully described ones (else every component is checked whole). */
  componentLevels: boolean;
}
