import { setImmediate as turn } from 'node:timers/promises';
import type { Database } from '../../db/index.js';
import { componentsRepo } from './components.repo.js';
import type { KnownComponents } from './known-components.js';
import { Slots } from '../../shared/slots.js';
import { KEY_STRIDE, type ReadingColumns, type ReadingSlice } from '../parse/read-sbom.js';

/** Keys looked up in memory, remembered or listed per turn of the event loop (2–5 ms each). */
export const KEY_SLICE = 20_000;

/** `step(from, to)` over [0, length) in slices of KEY_SLICE, with a turn of the event loop between them. */
async function inSlices(length: number, step: (from: number, to: number) => void): Promise<void> {
  for (let from = 0; from < length; from += KEY_SLICE) {
    if (from > 0) await turn();
    step(from, Math.min(length, from + KEY_SLICE));
  }
}

/** The ids of `reading`'s components, and the positions of those `known` did not remember (now found or stored). */
interface Stored {
  keys: Uint8Array;
  ids: Float64Array;
  unknown: number[];
}

async function findOrStore(
  database: Database,
  org: { id: string; number: number },
  reading: ReadingColumns,
  known: KnownComponents,
): Promise<Stored> {
  const ids = new Float64Array(reading.count); // 0: not stored (ids start at 1)
  let found = 0;
  await inSlices(reading.count, (from, to) => {
    found += known.find(org.id, reading.keys, KEY_STRIDE, ids, from, to);
  });
  const unknown: number[] = [];
  if (found === reading.count) return { keys: reading.keys, ids, unknown };
  for (let i = 0; i < reading.count; i++) if (ids[i] === 0) unknown.push(i);
  const stored = await componentsRepo.findOrInsert(database, org.number, reading, unknown);
  for (let p = 0; p < unknown.length; p++) {
    const id = stored[p]!;
    if (!(id > 0)) throw new Error(`component ${unknown[p]} of the document was neither found nor stored`);
    ids[unknown[p]!] = id;
  }
  return { keys: reading.keys, ids, unknown };
}

/**
 * Remembers the ids `known` did not have, of a whole document (all its slices): room for all at
 * once, then a slice per turn. Room made a slice at a time would grow the organisation's table
 * several times in one document (each growth copies what it holds), and an organisation reaching
 * the bound partway through would start over and keep only the document's last slices.
 */
async function rememberStored(orgId: string, known: KnownComponents, parts: readonly Stored[]): Promise<void> {
  const count = parts.reduce((sum, part) => sum + part.unknown.length, 0);
  if (count === 0) return;
  await turn();
  known.reserve(orgId, count);
  for (const { keys, ids, unknown } of parts) {
    await inSlices(unknown.length, (from, to) => {
      known.remember(orgId, keys, KEY_STRIDE, ids, unknown.slice(from, to));
    });
  }
}

/** Slices of one document stored at once (storeInSlices); on PostgreSQL their chunks share the process's bulk slots (postgres.ts). */
export const SLICES_AT_ONCE = 2;

/**
 * The organisation's ids of a document's components, in document order, as it is read in slices
 * (SbomReader.read); components the organisation does not store yet are stored first. Outside the
 * revision's transaction: a stored component is immutable and only referenced once that
 * transaction commits, so a crash in between leaves at most unreferenced components, which the
 * next upload listing them reuses. Components `known` remembers (nearly all, from the second
 * revision of a product on) cost nothing; the others of each slice are found or stored in one
 * transaction of their own (Database.findOrInsert: on SQLite in a thread of its own).
 *
 * Each slice is stored as it arrives, SLICES_AT_ONCE at a time, while the rest is still being
 * read. `finish` remembers the ids of the whole document at once, once all are committed, and
 * gives them in document order, or throws the first failure (the slices not yet begun are not
 * stored); `abandon` drops the slices not yet begun and waits for those under way (a reading that
 * failed leaves nothing running).
 */
export function storeInSlices(database: Database, org: { id: string; number: number }, known: KnownComponents) {
  const slots = new Slots(SLICES_AT_ONCE);
  const stores: Array<Promise<void>> = [];
  let failure: { error: unknown } | null = null;
  let abandoned = false;
  const parts: Array<Stored & { first: number }> = [];

  return {
    add(slice: ReadingSlice): void {
      stores.push(
        slots.run(async () => {
          // Once a slice failed, or the reading did, the slices still waiting are not stored.
          if (failure || abandoned) return;
          try {
            parts.push({ first: slice.first, ...(await findOrStore(database, org, slice, known)) });
          } catch (error) {
            failure ??= { error };
          }
        }),
      );
    },
    async abandon(): Promise<void> {
      abandoned = true;
      await Promise.all(stores);
    },
    async finish(count: number): Promise<Float64Array> {
      await Promise.all(stores);
      if (failure) throw failure.error;
      const ids = new Float64Array(count);
      let covered = 0;
      for (const { first, ids: some } of parts) {
        ids.set(some, first);
        covered += some.length;
      }
      if (covered !== count) throw new Error(`${covered} of the document's ${count} components were stored`);
      await rememberStored(org.id, known, parts);
      return ids;
    },
  };
}
