// A long import's progress on a terminal (firmware.md, Feeds: importing the whole NVD takes
// minutes, and a silent command looks hung): records read, the rate, and the share done where the
// size is known, rewritten in place on stderr. Nothing before `after` ms (a short import stays
// quiet), nothing more often than every `every` ms, and nothing at all unless stderr is a
// terminal and the output is not --json (the caller decides).

import type { ImportProgress } from '../vulns/vulns.schemas.js';

export function progressLine(p: ImportProgress, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? Math.round((p.records * 1000) / elapsedMs) : 0;
  const share = p.size && p.done !== null ? `, ${Math.min(100, Math.floor((p.done * 100) / p.size))}% done` : '';
  return `${p.source}: ${p.records.toLocaleString('en')} records read, ${rate.toLocaleString('en')}/s${share}`;
}

export function createProgress(
  stderr: { write(text: string): unknown },
  options: { now?: () => number; after?: number; every?: number } = {},
) {
  const now = options.now ?? (() => performance.now());
  const after = options.after ?? 3_000;
  const every = options.every ?? 250;
  const started = now();
  let last = -Infinity;
  let width = 0;
  return {
    update(p: ImportProgress): void {
      const at = now();
      if (at - started < after || at - last < every) return;
      last = at;
      const line = progressLine(p, at - started);
      stderr.write(`\r${line.padEnd(width)}`);
      width = line.length;
    },
    /** Ends the line, when one was written. */
    finish(): void {
      if (width > 0) stderr.write('\n');
      width = 0;
    },
  };
}
