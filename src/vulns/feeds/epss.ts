import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

// FIRST's EPSS scores: `epss_scores-current.csv.gz`, a gzip of a CSV whose first line is a
// comment (`#model_version:…,score_date:…`), then `cve,epss,percentile`, then one row per CVE
// (~330,000). Read line by line: memory stays flat whatever the file's size.

export interface EpssRow {
  cve: string;
  score: number;
  percentile: number;
}

const CVE = /^CVE-\d{4}-\d{4,}$/;
/** The longest line a score file has any business holding. */
const MAX_LINE = 1024;
/** What a score file may decompress to (today's is ~10 MB): a gzip bomb stops here. */
export const MAX_EPSS_BYTES = 512 * 1024 * 1024;

export class EpssFileError extends Error {}

/** The file's lines, never holding more than one line and one chunk, within MAX_EPSS_BYTES. */
async function* linesOf(input: Readable): AsyncGenerator<string> {
  let rest = '';
  let total = 0;
  for await (const chunk of input as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > MAX_EPSS_BYTES) throw new EpssFileError(`decompresses to more than ${MAX_EPSS_BYTES / 1024 / 1024} MiB`);
    const parts = (rest + chunk.toString('latin1')).split('\n');
    rest = parts.pop()!;
    if (rest.length > MAX_LINE) throw new EpssFileError(`has a line longer than ${MAX_LINE} bytes: not an EPSS score file`);
    for (const line of parts) yield line.endsWith('\r') ? line.slice(0, -1) : line;
  }
  if (rest) yield rest;
}

/** Whether the first bytes look like an EPSS file (gzip is decided by the caller: the magic number). */
export function looksLikeEpss(head: string): boolean {
  return /^#model_version:/.test(head) || /^cve,epss,percentile/.test(head);
}

/** The score date the comment line names (`score_date:2026-03-28T12:55:00Z`), if any. */
export function scoreDateOf(comment: string): string | null {
  return /score_date:([0-9T:.Z-]+)/.exec(comment)?.[1] ?? null;
}

/**
 * The rows of an EPSS file (gzip or plain, by its first two bytes), batch by batch. Lines that
 * cannot be read are counted in `skipped` with their line number and why.
 */
export async function* readEpss(
  path: string,
  gzip: boolean,
  onComment: (line: string) => void,
  skipped: Array<{ entry: string; reason: string } | { id: string; reason: string }>,
  batchSize = 2000,
): AsyncGenerator<EpssRow[]> {
  const file = createReadStream(path);
  const input: Readable = gzip ? file.pipe(createGunzip()) : file;
  file.on('error', (error) => input.destroy(error));
  let batch: EpssRow[] = [];
  let number = 0;
  for await (const line of linesOf(input)) {
    number++;
    if (line.startsWith('#')) {
      onComment(line);
      continue;
    }
    if (line === '' || line.startsWith('cve,')) continue;
    const [cve, score, percentile, extra] = line.split(',');
    const s = Number(score);
    const p = Number(percentile);
    if (!cve || !CVE.test(cve) || extra !== undefined || !(s >= 0 && s <= 1) || !(p >= 0 && p <= 1)) {
      skipped.push({ entry: `line ${number}`, reason: 'is not "CVE id,score,percentile" with scores between 0 and 1' });
      continue;
    }
    batch.push({ cve, score: s, percentile: p });
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}
