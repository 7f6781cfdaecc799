import type { Database } from '../db/index.js';
import { isUniqueViolation } from '../db/index.js';
import { componentFields } from './component-rows.js';
import { componentsRepo, KEY_LOOKUP_CHUNK } from './components.repo.js';
import type { KnownComponents } from './known-components.js';
import { keysBetween, type SbomReading, textAt } from './read-sbom.js';

/** New components per transaction: ~10 ms of SQLite work, so the event loop is never held longer. */
const INSERT_SLICE = 2_000;

/** Keys split, looked up in memory or remembered per turn of the event loop. */
const KEY_SLICE = 10_000;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
  // A document `known` covers has each key as a string, to look up in memory; a larger one only
  // those of the components it stores anew, and finds the others by position (findKeys).
  const keys: string[] | null = known.covers(reading.count) ? new Array(reading.count) : null;
  const keyAt = (i: number): string => (keys ? keys[i]! : keysBetween(reading, i, i + 1));
  if (keys) {
    // A slice at a time, with a turn of the event loop between slices (~2–5 ms each).
    let found = 0;
    for (let from = 0; from < reading.count; from += KEY_SLICE) {
      const to = Math.min(reading.count, from + KEY_SLICE);
      const slice = keysBetween(reading, from, to).split(',');
      for (let p = 0; p < slice.length; p++) keys[from + p] = slice[p]!;
      found += known.find(orgId, keys, ids, from, to);
      await turn();
    }
    if (found < reading.count) await lookUp(database, orgId, keys, ids);
  } else {
    for (let from = 0; from < reading.count; from += KEY_LOOKUP_CHUNK) {
      const to = Math.min(reading.count, from + KEY_LOOKUP_CHUNK);
      await componentsRepo.findKeys(database.db, database.dialect, orgId, keysBetween(reading, from, to), ids, from);
      await turn();
    }
  }
  // Each new component once, at its first position in the document.
  const firstIndex = new Map<string, number>();
  for (let i = 0; i < reading.count; i++) {
    if (ids[i] !== 0) continue;
    const key = keyAt(i);
    if (!firstIndex.has(key)) firstIndex.set(key, i);
  }
  if (firstIndex.size > 0) {
    const missing = [...firstIndex];
    const newIds = new Map<string, number>();
    for (let i = 0; i < missing.length; i += INSERT_SLICE) {
      await insertSlice(database, orgId, reading, missing.slice(i, i + INSERT_SLICE), newIds);
      await turn();
    }
    for (let i = 0; i < reading.count; i++) {
      if (ids[i] !== 0) continue;
      const id = newIds.get(keyAt(i));
      if (id === undefined) throw new Error(`component ${i} of the document was neither found nor stored`);
      ids[i] = id;
    }
  }
  for (let from = 0; keys && from < reading.count; from += KEY_SLICE) {
    known.remember(orgId, keys, ids, from, Math.min(reading.count, from + KEY_SLICE));
    await turn();
  }
  return ids;
}

/** Sets the ids of the stored components among those whose id is 0 yet, KEY_LOOKUP_CHUNK keys per lookup. */
async function lookUp(database: Database, orgId: string, keys: readonly string[], ids: Float64Array): Promise<void> {
  const unknown: number[] = [];
  for (let i = 0; i < keys.length; i++) if (ids[i] === 0) unknown.push(i);
  for (let from = 0; from < unknown.length; from += KEY_LOOKUP_CHUNK) {
    const positions = unknown.slice(from, from + KEY_LOOKUP_CHUNK);
    const found = new Float64Array(positions.length);
    await componentsRepo.findKeys(database.db, database.dialect, orgId, positions.map((i) => keys[i]).join(','), found);
    for (let p = 0; p < positions.length; p++) if (found[p] !== 0) ids[positions[p]!] = found[p]!;
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
