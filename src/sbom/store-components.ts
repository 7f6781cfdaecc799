import type { Database } from '../db/index.js';
import { isUniqueViolation } from '../db/index.js';
import { componentFields, KEY_LENGTH } from './component-rows.js';
import { ARRAY_LOOKUP_CHUNK, componentsRepo, LOOKUP_CHUNK } from './components.repo.js';
import type { SbomReading } from './read-sbom.js';

/** New components per transaction: ~10 ms of SQLite work, so the event loop is never held longer. */
const INSERT_SLICE = 2_000;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The organisation's ids of the read document's components, in document order; components
 * the organisation does not store yet are inserted first. Runs in short steps with a turn of
 * the event loop between them, and outside the revision's transaction: a stored component is
 * immutable and only referenced once that transaction commits, so a crash in between leaves
 * at most unreferenced components, which the next upload listing them reuses.
 */
export async function storeComponents(database: Database, orgId: string, reading: SbomReading): Promise<Int32Array> {
  const keys: string[] = new Array(reading.count);
  for (let i = 0; i < reading.count; i++) keys[i] = reading.keys.slice(i * KEY_LENGTH, (i + 1) * KEY_LENGTH);
  const distinct = [...new Set(keys)];
  const ids = new Map<string, number>();
  const chunk = database.dialect === 'postgres' ? ARRAY_LOOKUP_CHUNK : LOOKUP_CHUNK;
  for (let i = 0; i < distinct.length; i += chunk) {
    await componentsRepo.findIds(database.db, orgId, distinct.slice(i, i + chunk), ids, database.dialect);
    await turn();
  }
  const firstIndex = new Map<string, number>();
  keys.forEach((key, i) => {
    if (!ids.has(key) && !firstIndex.has(key)) firstIndex.set(key, i);
  });
  const missing = [...firstIndex];
  for (let i = 0; i < missing.length; i += INSERT_SLICE) {
    await insertSlice(database, orgId, reading, missing.slice(i, i + INSERT_SLICE), ids);
    await turn();
  }
  const out = new Int32Array(reading.count);
  for (let i = 0; i < reading.count; i++) out[i] = ids.get(keys[i]!)!;
  return out;
}

async function insertSlice(
  database: Database,
  orgId: string,
  reading: SbomReading,
  slice: Array<[string, number]>,
  ids: Map<string, number>,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await database.transaction(async (trx) => {
        // Another upload may have stored some since the lookup (on PostgreSQL, concurrently).
        const found = await componentsRepo.findIds(
          trx,
          orgId,
          slice.map(([key]) => key),
          undefined,
          database.dialect,
        );
        const rows = slice
          .filter(([key]) => !found.has(key))
          .map(([key, index]) => ({
            key,
            fields: componentFields(reading.texts.slice(reading.offsets[index]!, reading.offsets[index + 1]!)),
          }));
        if (rows.length > 0) await componentsRepo.insert(database, trx, orgId, rows);
        await componentsRepo.findIds(
          trx,
          orgId,
          rows.map((r) => r.key),
          found,
          database.dialect,
        );
        for (const [key, id] of found) ids.set(key, id);
      });
      return;
    } catch (error) {
      // Two uploads inserting the same new component at once: the second looks again.
      if (!isUniqueViolation(error) || attempt >= 3) throw error;
    }
  }
}
