import type { AnalysisState } from '../vulns.schemas.js';

// One analysis, three vocabularies: CycloneDX's impact analysis (what the platform keeps), and
// the statuses and justifications OpenVEX and CSAF share, mapped as CISA's "Minimum Requirements
// for VEX" maps them.

/** OpenVEX statuses; CSAF's product_status groups are the same four. */
export type VexStatus = 'not_affected' | 'affected' | 'fixed' | 'under_investigation';

/** OpenVEX justifications, which are CSAF 2.0's flag labels. */
export const VEX_JUSTIFICATIONS = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
] as const;
export type VexJustification = (typeof VEX_JUSTIFICATIONS)[number];

const STATUS_OF: Record<AnalysisState, VexStatus> = {
  in_triage: 'under_investigation',
  exploitable: 'affected',
  resolved: 'fixed',
  false_positive: 'not_affected',
  not_affected: 'not_affected',
};

const JUSTIFICATION_OUT: Record<string, VexJustification> = {
  code_not_present: 'vulnerable_code_not_present',
  code_not_reachable: 'vulnerable_code_not_in_execute_path',
  requires_configuration: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_dependency: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_environment: 'vulnerable_code_cannot_be_controlled_by_adversary',
  protected_by_compiler: 'inline_mitigations_already_exist',
  protected_at_runtime: 'inline_mitigations_already_exist',
  protected_at_perimeter: 'inline_mitigations_already_exist',
  protected_by_mitigating_control: 'inline_mitigations_already_exist',
};

const JUSTIFICATION_IN: Record<VexJustification, string> = {
  component_not_present: 'code_not_present',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
};

/** An analysis as an OpenVEX / CSAF status and justification. */
export function toVex(state: AnalysisState, justification: string | null): { status: VexStatus; justification: VexJustification | null } {
  const status = STATUS_OF[state];
  if (status !== 'not_affected') return { status, justification: null };
  // A false positive: the component the match named is not what the product contains.
  if (state === 'false_positive') return { status, justification: 'component_not_present' };
  return { status, justification: (justification && JUSTIFICATION_OUT[justification]) || 'vulnerable_code_not_present' };
}

/** An OpenVEX / CSAF status and justification as an analysis state and CycloneDX justification. */
export function fromVex(status: string, justification: string | null): { state: AnalysisState; justification: string | null } | null {
  switch (status) {
    case 'not_affected':
    case 'known_not_affected':
      return {
        state: 'not_affected',
        justification: justification && justification in JUSTIFICATION_IN ? JUSTIFICATION_IN[justification as VexJustification] : null,
      };
    case 'affected':
    case 'known_affected':
      return { state: 'exploitable', justification: null };
    case 'fixed':
      return { state: 'resolved', justification: null };
    case 'under_investigation':
      return { state: 'in_triage', justification: null };
    default:
      return null;
  }
}
