// What the reporter's follow-up page says about the report (disclosure.md): one of these,
// read off the signal's triage and, once a case exists, the case's progress.

export type ReportState = 'received' | 'triaged' | 'case opened' | 'fixed' | 'advisory published' | 'closed' | 'dismissed';

export interface CaseProgress {
  status: 'open' | 'closed';
  fix_available_at: string | null;
  advisory_published_at: string | null;
}

/** `teamActed`: the team has answered the reporter while the report still awaits triage. */
export function reportState(signalStatus: string, kase: CaseProgress | null, teamActed: boolean): ReportState {
  if (signalStatus === 'DISMISSED') return 'dismissed';
  if (kase) {
    if (kase.status === 'closed') return 'closed';
    if (kase.advisory_published_at) return 'advisory published';
    if (kase.fix_available_at) return 'fixed';
    return signalStatus === 'MERGED' ? 'triaged' : 'case opened';
  }
  if (signalStatus === 'MERGED') return 'triaged';
  return teamActed ? 'triaged' : 'received';
}
