import { type Prepared, prepareRecord, type RawRecord } from './prepare-record.js';

// A worker thread of the OSV import (prepared-records.ts): a batch of raw records in, prepared ones
// out, while the main thread stores the batch before.
export default function prepareBatch(batch: RawRecord[]): Prepared[] {
  return batch.map(prepareRecord);
}
