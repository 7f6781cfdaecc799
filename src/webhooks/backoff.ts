/**
 * The wait before retry number `attempt` (1 = the first retry): exponential from `baseMs`,
 * capped at `maxMs`, with "equal jitter" (half fixed, half random) so endpoints that failed
 * together do not all come back at the same instant.
 */
export function retryDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}
