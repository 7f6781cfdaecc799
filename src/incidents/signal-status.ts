/**
 * Where a signal stands in triage. `INCOMING` is the only status the API spec names; a signal
 * leaves it once, for exactly one outcome (art14.md): a case is opened for it (`CASE_OPENED`),
 * it is dismissed with a reason (`DISMISSED`) or merged into a case as a duplicate (`MERGED`).
 */
export type SignalStatus = 'INCOMING' | 'CASE_OPENED' | 'DISMISSED' | 'MERGED';
export const SIGNAL_INCOMING: SignalStatus = 'INCOMING';
export const SIGNAL_CASE_OPENED: SignalStatus = 'CASE_OPENED';
export const SIGNAL_DISMISSED: SignalStatus = 'DISMISSED';
export const SIGNAL_MERGED: SignalStatus = 'MERGED';
