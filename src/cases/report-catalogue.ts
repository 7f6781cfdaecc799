import type { CaseKind, StageName } from './stage-rules.js';
import { isMemberState, MEMBER_STATES } from '../shared/member-states.js';
import { unstorableReason } from '../shared/storable-text.js';

// The field catalogue of the Article 14 reports: the one place that says which field each
// stage's report has and which are required, per kind of case. It follows the Article 14 text
// (14(2), 14(4), 14(6)) and the ENISA SRP glossary; when ENISA changes its form, change this
// module and bump CATALOGUE_VERSION (it is shown in every export and frozen into every filing).
// The order of FIELDS is the order of the SRP form, and so of the plain-text export.

export const CATALOGUE_VERSION = 'art14-srp-2026.1';

export const TLP_LABELS = ['CLEAR', 'GREEN', 'AMBER', 'AMBER+STRICT', 'RED'] as const;
export const MALICIOUS_ACT = ['yes', 'no', 'unknown'] as const;

type Need = 'required' | 'optional';
/** A need that depends on the kind of case. */
type KindNeed = Need | { vulnerability?: Need; incident?: Need };
export type FieldType = 'text' | 'list' | 'timestamp' | 'email' | 'member_state' | 'member_states' | 'cve_list' | 'enum';

export interface FieldDef {
  key: string;
  label: string | Record<CaseKind, string>;
  type: FieldType;
  options?: readonly string[];
  /** Stages whose report has this field; absent: not on that stage's form. */
  stages: Partial<Record<StageName, KindNeed>>;
}

const ALL_REQUIRED = { early_warning: 'required', notification: 'required', intermediate: 'required', final: 'required' } as const;
const ALL_OPTIONAL = { early_warning: 'optional', notification: 'optional', intermediate: 'optional', final: 'optional' } as const;

// Intermediate reports (14(6)) repeat the identification of the case and add the status update.
export const FIELDS: readonly FieldDef[] = [
  {
    key: 'kind',
    label: 'Type of notification (actively exploited vulnerability or severe incident)',
    type: 'enum',
    options: ['vulnerability', 'incident'],
    stages: ALL_REQUIRED,
  },
  { key: 'title', label: 'Title', type: 'text', stages: ALL_REQUIRED },
  {
    key: 'summary',
    label: 'Summary',
    type: 'text',
    stages: { early_warning: 'required', notification: 'required', intermediate: 'optional', final: 'required' },
  },
  { key: 'manufacturer_name', label: 'Manufacturer: legal name', type: 'text', stages: ALL_REQUIRED },
  { key: 'manufacturer_address', label: 'Manufacturer: postal address', type: 'text', stages: ALL_REQUIRED },
  { key: 'manufacturer_contact_email', label: 'Manufacturer: security contact e-mail', type: 'email', stages: ALL_REQUIRED },
  { key: 'member_state', label: 'Member State of main establishment', type: 'member_state', stages: ALL_REQUIRED },
  { key: 'product_name', label: 'Product name', type: 'text', stages: ALL_REQUIRED },
  { key: 'affected_versions', label: 'Affected versions', type: 'list', stages: ALL_REQUIRED },
  { key: 'markets', label: 'Member States where the product is made available', type: 'member_states', stages: ALL_REQUIRED },
  { key: 'aware_at', label: 'Time of becoming aware', type: 'timestamp', stages: ALL_REQUIRED },
  {
    key: 'suspected_malicious_act',
    label: 'Suspected unlawful or malicious act (yes / no / unknown)',
    type: 'enum',
    options: MALICIOUS_ACT,
    stages: { early_warning: { incident: 'required' }, notification: { incident: 'required' } },
  },
  { key: 'cve_ids', label: 'CVE / EUVD identifiers', type: 'cve_list', stages: ALL_OPTIONAL },
  { key: 'product_class', label: 'Product class (Annex III / IV)', type: 'text', stages: ALL_OPTIONAL },
  { key: 'end_of_support', label: 'End of support period', type: 'timestamp', stages: ALL_OPTIONAL },
  {
    key: 'nature',
    label: {
      vulnerability: 'General nature of the exploit and of the vulnerability',
      incident: 'Nature of the incident and initial assessment',
    },
    type: 'text',
    stages: { notification: 'required' },
  },
  {
    key: 'corrective_measures',
    label: 'Corrective or mitigating measures taken',
    type: 'text',
    stages: { notification: 'required', final: 'required' },
  },
  {
    key: 'user_measures',
    label: 'Corrective or mitigating measures users can take',
    type: 'text',
    stages: { notification: 'required', final: 'required' },
  },
  {
    key: 'tlp',
    label: 'Sensitivity of the information (TLP)',
    type: 'enum',
    options: TLP_LABELS,
    stages: { notification: 'required', final: 'required' },
  },
  { key: 'description', label: 'Detailed description', type: 'text', stages: { final: 'required' } },
  { key: 'severity', label: 'Severity', type: 'text', stages: { final: 'required' } },
  { key: 'impact', label: 'Impact', type: 'text', stages: { final: 'required' } },
  {
    key: 'threat_or_root_cause',
    label: { vulnerability: 'Malicious actor exploiting the vulnerability, where known', incident: 'Type of threat or root cause' },
    type: 'text',
    stages: { final: { vulnerability: 'optional', incident: 'required' } },
  },
  {
    key: 'remediation',
    label: {
      vulnerability: 'Security update or other corrective measure made available',
      incident: 'Mitigation measures applied and ongoing',
    },
    type: 'text',
    stages: { final: 'required' },
  },
  {
    key: 'remediation_available_at',
    label: 'Date the security update or corrective measure became available',
    type: 'timestamp',
    stages: { final: { vulnerability: 'required' } },
  },
  { key: 'status_update', label: 'Status update', type: 'text', stages: { intermediate: 'required' } },
];

export type ReportValue = string | string[];
export type ReportFields = Record<string, ReportValue>;

function need(field: FieldDef, stage: StageName, kind: CaseKind): Need | undefined {
  const n = field.stages[stage];
  return typeof n === 'object' ? n[kind] : n;
}

export function fieldLabel(field: FieldDef, kind: CaseKind): string {
  return typeof field.label === 'string' ? field.label : field.label[kind];
}

/** The fields on a stage's form for this kind of case, in the form's order, with whether each is required. */
export function formFields(stage: StageName, kind: CaseKind): Array<FieldDef & { required: boolean }> {
  return FIELDS.flatMap((f) => {
    const n = need(f, stage, kind);
    return n ? [{ ...f, required: n === 'required' }] : [];
  });
}

const isBlank = (v: ReportValue | undefined) => v === undefined || (Array.isArray(v) ? v.length === 0 : v.trim() === '');

/** The required fields the draft lacks, in the form's order (empty: it can be filed). */
export function missingFields(stage: StageName, kind: CaseKind, values: ReportFields): string[] {
  return formFields(stage, kind)
    .filter((f) => f.required && isBlank(values[f.key]))
    .map((f) => f.key);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CVE = /^(CVE-\d{4}-\d{4,}|EUVD-\d{4}-\d{4,})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks one value against its field and returns it normalised (lists trimmed, codes upper
 * case, timestamps as UTC ISO), or an error message naming the field.
 */
export function checkValue(field: FieldDef, raw: ReportValue): { value: ReportValue } | { error: string } {
  const fail = (why: string) => ({ error: `${field.key}: ${why}` });
  // Checked first: no later message quotes text no database could store.
  for (const piece of Array.isArray(raw) ? raw : [raw]) {
    const unstorable = unstorableReason(piece);
    if (unstorable) return fail(unstorable);
  }
  const list = (Array.isArray(raw) ? raw : raw.split(',')).map((s) => s.trim()).filter(Boolean);
  const text = Array.isArray(raw) ? raw.join(', ') : raw.trim();
  switch (field.type) {
    case 'text':
      return { value: text };
    case 'list':
      return { value: list };
    case 'email':
      return text === '' || EMAIL.test(text) ? { value: text } : fail(`"${text}" is not an e-mail address`);
    case 'timestamp': {
      if (text === '') return { value: text };
      const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : RFC3339.test(text) ? new Date(text) : null;
      return date && !Number.isNaN(date.getTime()) ? { value: date.toISOString() } : fail(`"${text}" is not an RFC 3339 timestamp`);
    }
    case 'member_state': {
      const code = text.toUpperCase();
      return code === '' || isMemberState(code)
        ? { value: code }
        : fail(`"${text}" is not one of the 27 Member States (${MEMBER_STATES.join(', ')})`);
    }
    case 'member_states': {
      const codes = list.map((c) => c.toUpperCase());
      const bad = codes.filter((c) => c !== 'EU' && !isMemberState(c));
      return bad.length ? fail(`not Member States: ${bad.join(', ')}`) : { value: codes };
    }
    case 'cve_list': {
      const ids = list.map((c) => c.toUpperCase());
      const bad = ids.filter((c) => !CVE.test(c));
      return bad.length ? fail(`not CVE-YYYY-NNNN or EUVD-YYYY-NNNN identifiers: ${bad.join(', ')}`) : { value: ids };
    }
    case 'enum': {
      const options = field.options ?? [];
      const match = options.find((o) => o.toLowerCase() === text.toLowerCase());
      return text === '' || match ? { value: match ?? '' } : fail(`"${text}" is not one of ${options.join(', ')}`);
    }
  }
}

/**
 * Checks values against a stage's form: unknown fields and malformed values are errors (all of
 * them at once); the normalised values come back for storing as the draft.
 */
export function checkFields(stage: StageName, kind: CaseKind, values: ReportFields): { fields: ReportFields; errors: string[] } {
  const form = new Map(formFields(stage, kind).map((f) => [f.key, f]));
  const fields: ReportFields = {};
  const errors: string[] = [];
  for (const [key, raw] of Object.entries(values)) {
    const field = form.get(key);
    if (!field) {
      errors.push(`${key}: not a field of the ${stage.replace('_', ' ')} report (fields: ${[...form.keys()].join(', ')})`);
      continue;
    }
    const checked = checkValue(field, raw);
    if ('error' in checked) errors.push(checked.error);
    else fields[key] = checked.value;
  }
  return { fields, errors };
}

/** "the CSIRT designated as coordinator of <Member State>, and ENISA" (14(7)). */
export function recipient(memberState: string | undefined): string {
  return `the CSIRT designated as coordinator of ${memberState || '(Member State not set)'}, and ENISA`;
}

/** The report as plain text, field by field in the SRP form's order, to type into the form. */
export function reportText(input: {
  stage: StageName;
  seq: number;
  kind: CaseKind;
  incidentNumber: number;
  fields: ReportFields;
  filed?: { at: string; reference: string };
}): string {
  const stageName = {
    early_warning: 'Early warning',
    notification: 'Vulnerability/incident notification',
    intermediate: 'Intermediate report',
    final: 'Final report',
  }[input.stage];
  const lines = [
    `${stageName}${input.stage === 'intermediate' ? ` ${input.seq}` : ''} — case ${input.incidentNumber} (CRA Article 14)`,
    `To: ${recipient(input.fields.member_state as string | undefined)}`,
    `Field catalogue: ${CATALOGUE_VERSION}`,
    ...(input.filed ? [`Filed: ${input.filed.at}, SRP reference ${input.filed.reference}`] : []),
    '',
  ];
  for (const f of formFields(input.stage, input.kind)) {
    const v = input.fields[f.key];
    const shown =
      v === undefined || isBlank(v) ? (f.required ? '(MISSING — required)' : '(not given)') : Array.isArray(v) ? v.join(', ') : v;
    lines.push(`${fieldLabel(f, input.kind)}:`, `  ${shown.replace(/\n/g, '\n  ')}`);
  }
  return lines.join('\n');
}
