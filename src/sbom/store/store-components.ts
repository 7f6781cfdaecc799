import { setImmediate as turn } from 'node:timers/promises';
import type { Database } from '../../db/index.js';
import { isUniqueViolation } from '../../db/index.js';
import { componentFields } from '../parse/component-rows.js';
import { componentsRepo, KEY_LOOKUP_CHUNK } from './components.repo.js';
import type { KnownComponents } from './known-components.js';
import { KEY_STRIDE, keysBetween, type SbomReading, textAt } from '../parse/read-sbom.js';

/** New components per transaction: ~10 ms of SQLite work, so the event loop is never held longer. */
const INSERT_SLICE = 2_000;

/** Keys looked up in memory, remembered or listed per turn of the event loop (2–5 ms each). */
export const KEY_SLICE = 20_000;

/** `step(from, to)` over [0, length) in slices of KEY_SLICE, with a turn of the event loop between them. */
async function inSlices(length: number, step: (from: number, to: number) => void): Promise<void> {
  for (let from = 0; from < length; from += KEY_SLICE) {
    if (from > 0) await turn();
    step(from, Math.min(length, from + KEY_SLICE));
  }
}

/**
 * The organisation's ids of the read document's components, in document order; components
 * the organisation does not store yet are inserted first. Runs in short steps with a turn of
 * the event loop between them, and outside the revision's transaction: a stored component is
 * immutable and only referenced once that transaction commits, so a crash in between leaves
 * at most unreferenced components, which the next upload listing them reuses.
 * Components `known` remembers (nearly all, from the second revision of a product on) cost
 * nothing; the others one lookup per KEY_LOOKUP_CHUNK of them. The ids are remembered once
 * all are committed.
 */
export async function storeComponents(
  database: Database,
  orgId: string,
  reading: SbomReading,
  known: KnownComponents,
): Promise<Float64Array> {
  const ids = new Float64Array(reading.count); // 0: not stored (ids start at 1)
  let found = 0;
  await inSlices(reading.count, (from, to) => {
    found += known.find(orgId, reading.keys, KEY_STRIDE, ids, from, to);
  });
  if (found === reading.count) return ids;
  // The components not remembered: looked up, stored if new, then remembered.
  const unknown: number[] = [];
  for (let i = 0; i < reading.count; i++) if (ids[i] === 0) unknown.push(i);
  await lookUp(database, orgId, reading, unknown, ids);
  // Each new component once, at its first position in the document.
  const firstIndex = new Map<string, number>();
  await inSlices(unknown.length, (from, to) => {
    for (let p = from; p < to; p++) {
      const i = unknown[p]!;
      if (ids[i] !== 0) continue;
      const key = keysBetween(reading, i, i + 1);
      if (!firstIndex.has(key)) firstIndex.set(key, i);
    }
  });
  if (firstIndex.size > 0) {
    const missing = [...firstIndex];
    const newIds = new Map<string, number>();
    for (let i = 0; i < missing.length; i += INSERT_SLICE) {
      await insertSlice(database, orgId, reading, missing.slice(i, i + INSERT_SLICE), newIds);
      await turn();
    }
    await inSlices(unknown.length, (from, to) => {
      for (let p = from; p < to; p++) {
        const i = unknown[p]!;
        if (ids[i] !== 0) continue;
        const id = newIds.get(keysBetween(reading, i, i + 1));
        if (id === undefined) throw new Error(`component ${i} of the document was neither found nor stored`);
        ids[i] = id;
      }
    });
  }
  // Room for all at once (growing a table copies what it holds), then a slice per turn.
  await turn();
  known.reserve(orgId, unknown.length);
  await inSlices(unknown.length, (from, to) => {
    known.remember(orgId, reading.keys, KEY_STRIDE, ids, unknown.slice(from, to));
  });
  return ids;
}

/**
 * Sets the ids of the stored components at `positions`, KEY_LOOKUP_CHUNK keys per lookup. A run
 * of neighbours (all of them, on a first upload) is looked up as the slice of the key column it
 * is, with no string per key.
 */
async function lookUp(
  database: Database,
  orgId: string,
  reading: SbomReading,
  positions: readonly number[],
  ids: Float64Array,
): Promise<void> {
  for (let from = 0; from < positions.length; from += KEY_LOOKUP_CHUNK) {
    const chunk = positions.slice(from, from + KEY_LOOKUP_CHUNK);
    const first = chunk[0]!;
    const last = chunk[chunk.length - 1]!;
    if (last - first === chunk.length - 1) {
      await componentsRepo.findKeys(database.db, database.dialect, orgId, keysBetween(reading, first, last + 1), ids, first);
    } else {
      const found = new Float64Array(chunk.length);
      const keys = chunk.map((i) => keysBetween(reading, i, i + 1)).join(',');
      await componentsRepo.findKeys(database.db, database.dialect, orgId, keys, found);
      for (let p = 0; p < chunk.length; p++) if (found[p] !== 0) ids[chunk[p]!] = found[p]!;
    }
    await turn();
  }
}

async function insertSlice(
  database: Database,
  orgId: string,
  reading: SbomReading,
  slice: Array<[string, number]>,
  into: Map<string, number>,
): Promise<void> {
  const keys = slice.map(([key]) => key).join(',');
  for (let attempt = 1; ; attempt++) {
    try {
      await database.transaction(async (trx) => {
        // Another upload may have stored some since the lookup (on PostgreSQL, concurrently).
        const ids = new Float64Array(slice.length);
        await componentsRepo.findKeys(trx, database.dialect, orgId, keys, ids);
        const rows = slice.filter((_, p) => ids[p] === 0).map(([key, index]) => ({ key, fields: componentFields(textAt(reading, index)) }));
        if (rows.length > 0) await componentsRepo.insert(database, trx, orgId, rows);
        await componentsRepo.findKeys(trx, database.dialect, orgId, keys, ids);
        for (let p = 0; p < slice.length; p++) into.set(slice[p]![0], ids[p]!);
      });
      return;
    } catch (error) {
      // Two uploads inserting the same new component at once: the second looks again.
      if (!isUniqueViolation(error)) throw error;
      if (attempt >= 3) throw error;
    }
  }
}
