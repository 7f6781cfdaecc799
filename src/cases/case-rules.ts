// Pure rules shared by intake (mode `case`) and the console's `case open`.

const HOUR_MS = 3_600_000;
/** CRA Art. 14: early warning within 24 h, notification within 72 h of becoming aware. */
export const EARLY_WARNING_HOURS = 24;
export const FULL_NOTIFICATION_HOURS = 72;
export const TITLE_MAX = 120;

export function caseDeadlines(awareAt: Date): { earlyWarning: Date; fullNotification: Date } {
  return {
    earlyWarning: new Date(awareAt.getTime() + EARLY_WARNING_HOURS * HOUR_MS),
    fullNotification: new Date(awareAt.getTime() + FULL_NOTIFICATION_HOURS * HOUR_MS),
  };
}

/** The given title, else the description's first non-blank line, cut to 120 characters. */
export function caseTitle(title: string | null | undefined, description: string): string {
  const chosen = title?.trim() || description.split(/\r\n|\r|\n/).map((line) => line.trim()).find(Boolean) || 'untitled';
  // Array.from counts code points, so a cut never splits a surrogate pair.
  return Array.from(chosen).slice(0, TITLE_MAX).join('');
}
