import { cycloneDxReader } from './cyclonedx.js';
import { FIELD_ORDER, type ComponentFieldId, type ConformanceProfile, type FieldId } from './profile.js';
import { BSI_TR_03183_2_V2_1 } from './profiles/bsi-tr-03183-2-v2.1.js';
import { NTIA_MINIMUM } from './profiles/ntia-minimum.js';
import type { ComponentView, FormatReader, Json } from './reader.js';
import { spdx2Reader } from './spdx2.js';
import { spdx3Reader } from './spdx3.js';

// Is this SBOM good enough, and what exactly is missing (sbom-conformance.md). Pure: a parsed and
// validated document in, a report out, for each profile. The readers say per field whether it is
// there and why not; the profile (data) says which fields count, at which level.

export type ConformanceProfileId = 'bsi-tr-03183-2-v2.1' | 'ntia-minimum';

export const CONFORMANCE_PROFILES: readonly ConformanceProfileId[] = ['bsi-tr-03183-2-v2.1', 'ntia-minimum'];

export const DEFAULT_CONFORMANCE_PROFILE: ConformanceProfileId = 'bsi-tr-03183-2-v2.1';

export const PROFILES: Readonly<Record<ConformanceProfileId, ConformanceProfile>> = {
  'bsi-tr-03183-2-v2.1': BSI_TR_03183_2_V2_1,
  'ntia-minimum': NTIA_MINIMUM,
};

export interface ConformanceReport {
  profile: ConformanceProfileId;
  profile_version: string;
  conforms: boolean;
  missing_required: string[];
  document: { field: string; ok: boolean; level: 'required' | 'additional' }[];
  components: {
    total: number;
    conforming: number;
    fields: {
      field: string;
      level: 'required' | 'additional';
      missing: number;
      examples: { ref: string; name: string; version: string; why: string }[];
    }[];
  };
  findings: string[];
}

export interface SbomFormat {
  kind: 'cyclonedx' | 'spdx2' | 'spdx3';
  specVersion: string;
}

/** Examples given per field. */
export const MAX_EXAMPLES = 5;

export function isConformanceProfile(value: string): value is ConformanceProfileId {
  return (CONFORMANCE_PROFILES as readonly string[]).includes(value);
}

/** The document's report under `profile`. */
export function checkConformance(document: unknown, format: SbomFormat, profile: ConformanceProfileId): ConformanceReport {
  return evaluate(readerOf(document, format), format, PROFILES[profile]);
}

/** One report per profile of CONFORMANCE_PROFILES, in that order, the document read once. */
export function checkAllProfiles(document: unknown, format: SbomFormat): ConformanceReport[] {
  const reader = readerOf(document, format);
  return CONFORMANCE_PROFILES.map((id) => evaluate(reader, format, PROFILES[id]));
}

function readerOf(document: unknown, format: SbomFormat): FormatReader {
  const doc = (document ?? {}) as Json;
  if (format.kind === 'cyclonedx') return cycloneDxReader(doc);
  if (format.kind === 'spdx3') return spdx3Reader(doc);
  return spdx2Reader(doc);
}

/** -1, 0 or 1 as dotted version `a` is below, at or above `b`. */
function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

function belowFloor(format: SbomFormat, profile: ConformanceProfile): boolean {
  if (profile.floor === null) return false;
  const floor = profile.floor[format.kind];
  return floor === null || compareVersions(format.specVersion, floor) < 0;
}

function evaluate(reader: FormatReader, format: SbomFormat, profile: ConformanceProfile): ConformanceReport {
  const below = belowFloor(format, profile);
  const findings: string[] = [];
  if (below) findings.push('format_below_floor');
  if (profile.forbidsVulnerabilities && reader.vulnerabilities) findings.push('vulnerabilities_in_sbom');
  const missing = new Set<FieldId>();
  const base = { profile: profile.id as ConformanceProfileId, profile_version: profile.version };

  // The TR maps only SPDX 3.0.1: an SPDX 2 document gets its format verdict and nothing else.
  if (below && format.kind === 'spdx2') {
    return {
      ...base,
      conforms: false,
      missing_required: ['document.format'],
      document: [{ field: 'document.format', ok: false, level: 'required' }],
      components: { total: reader.components.length, conforming: 0, fields: [] },
      findings,
    };
  }

  const document = profile.documentFields.map(({ field, level }) => {
    const ok = field === 'document.format' ? !below : reader.document(field) === null;
    if (!ok && level === 'required') missing.add(field);
    return { field, ok, level };
  });

  const fields = profile.componentFields.map(({ field, level, logical }) => ({
    field,
    level,
    logical: logical === true || !profile.componentLevels,
    missing: 0,
    examples: [] as ConformanceReport['components']['fields'][number]['examples'],
  }));
  let conforming = 0;
  for (const c of reader.components) {
    let ok = true;
    for (const f of fields) {
      if (c.logical && profile.componentLevels && !f.logical) continue;
      const why = reader.component(f.field as ComponentFieldId, c as ComponentView, profile.rules, f.examples.length < MAX_EXAMPLES);
      if (why === null) continue;
      f.missing++;
      if (f.examples.length < MAX_EXAMPLES) f.examples.push({ ref: c.ref, name: c.name, version: c.version, why });
      if (f.level === 'required') {
        ok = false;
        missing.add(f.field);
      }
    }
    if (ok) conforming++;
  }

  const missingRequired = FIELD_ORDER.filter((f) => missing.has(f));
  return {
    ...base,
    conforms: missingRequired.length === 0 && findings.length === 0,
    missing_required: missingRequired,
    document,
    components: {
      total: reader.components.length,
      conforming,
      fields: fields.map(({ field, level, missing, examples }) => ({ field, level, missing, examples })),
    },
    findings,
  };
}
