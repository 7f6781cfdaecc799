import { AppError, type ErrorDetail } from '../../errors.js';
import {
  CONFORMANCE_PROFILES,
  type ConformanceProfileId,
  type ConformanceReport,
  DEFAULT_CONFORMANCE_PROFILE,
  isConformanceProfile,
} from './conformance.js';

/**
 * An organisation's SBOM policy (sbom-conformance.md, Where it shows): `report` accepts every
 * valid SBOM and reports its conformance; `require:PROFILE` refuses one that does not conform to
 * PROFILE, storing nothing.
 */
export type SbomPolicy = { mode: 'report' } | { mode: 'require'; profile: ConformanceProfileId };

export const SBOM_POLICY_WORDS = ['report', ...CONFORMANCE_PROFILES.map((p) => `require:${p}`)] as const;

/** `report` or `require:PROFILE` → the policy; anything else is a validation error naming the choices. */
export function parseSbomPolicy(text: string): SbomPolicy {
  const value = text.trim();
  if (value === 'report') return { mode: 'report' };
  if (value.startsWith('require:') && isConformanceProfile(value.slice('require:'.length))) {
    return { mode: 'require', profile: value.slice('require:'.length) as ConformanceProfileId };
  }
  throw new AppError('validation_failed', `the SBOM policy must be one of ${SBOM_POLICY_WORDS.join(', ')}`, [
    { path: '/sbom_policy', message: `"${value}" is none of ${SBOM_POLICY_WORDS.join(', ')}` },
  ]);
}

/** A stored policy (always one parseSbomPolicy accepted when it was set) → the policy; an unknown one reads as `report`. */
export function storedSbomPolicy(text: string): SbomPolicy {
  try {
    return parseSbomPolicy(text);
  } catch {
    return { mode: 'report' };
  }
}

export function sbomPolicyText(policy: SbomPolicy): string {
  return policy.mode === 'report' ? 'report' : `require:${policy.profile}`;
}

/** The profile an organisation's answers and badges speak of: the one it requires, else the default. */
export function policyProfile(policy: SbomPolicy): ConformanceProfileId {
  return policy.mode === 'require' ? policy.profile : DEFAULT_CONFORMANCE_PROFILE;
}

/** "name version: why" of a report's example. */
function exampleText(example: { name: string; version: string; why: string }): string {
  return `${[example.name, example.version].filter((s) => s !== '').join(' ')}: ${example.why}`;
}

/**
 * The 422 `sbom_not_conformant` for a report that does not conform: one detail per missing
 * required field (`field`, on how many components, up to five "name version: why") and one per
 * finding, each with a message a pipeline's log can show as it stands.
 */
export function notConformantError(report: ConformanceReport): AppError {
  const details: ErrorDetail[] = [];
  for (const field of report.missing_required) {
    const counted = report.components.fields.find((f) => f.field === field && f.level === 'required');
    if (counted && counted.missing > 0) {
      const examples = counted.examples.slice(0, 5).map(exampleText);
      details.push({
        path: '',
        message: `${field}: missing on ${counted.missing} of ${report.components.total} components${examples.length > 0 ? ` (${examples.join('; ')})` : ''}`,
        field,
        missing: counted.missing,
        examples,
      });
    } else {
      details.push({ path: '', message: `${field}: missing from the document`, field, missing: 1, examples: [] });
    }
  }
  for (const finding of report.findings) details.push({ path: '', message: `finding: ${finding}`, finding });
  const fields = report.missing_required.length;
  const what = [fields > 0 ? `${fields} required field${fields === 1 ? '' : 's'} missing` : '', ...report.findings]
    .filter(Boolean)
    .join('; ');
  return new AppError(
    'sbom_not_conformant',
    `the SBOM does not conform to ${report.profile} (${report.profile_version}), which this organisation requires: ${what}; nothing was stored`,
    details,
  );
}
