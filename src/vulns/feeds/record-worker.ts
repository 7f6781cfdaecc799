import { type NvdBatch, type PreparedNvd, prepareNvdBatch } from './prepare-nvd.js';
import { type Prepared, prepareRecord, type RawRecord } from './prepare-record.js';

// A worker thread of the feed imports (prepared-records.ts): a batch of raw records in, prepared
// ones out, while the main thread stores the batch before. One function per kind of record.

export function prepareOsv(batch: RawRecord[]): Prepared[] {
  return batch.map(prepareRecord);
}

export function prepareNvd(batch: NvdBatch): PreparedNvd[] {
  return prepareNvdBatch(batch);
}
