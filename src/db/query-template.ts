import { CompiledQuery, type Compilable } from 'kysely';
import type { Executor } from './database.js';
import { nativeFor } from './native-statements.js';

/**
 * A query built and compiled once per dialect, then run with new values. For the few queries on
 * every request's path (key lookup, change stamps), Kysely's per-call building and compiling
 * costs more than SQLite takes to run them. `build` receives placeholders standing for the
 * named values (typed `never` so they fit any column); the compiled parameters are swapped for
 * the real values at each call.
 */
export function queryTemplate<Row, K extends string>(build: (db: Executor, slot: (name: K) => never) => Compilable<Row>) {
  const compiled = new Map<unknown, { sql: string; slots: Array<K | { literal: unknown }> }>();
  return async (db: Executor, values: Record<K, unknown>): Promise<Row[]> => {
    const executor = db.getExecutor();
    let template = compiled.get(executor.adapter.constructor);
    if (!template) {
      const marker = `\u0000slot:`;
      const query = build(db, (name) => `${marker}${name}` as never).compile();
      template = {
        sql: query.sql,
        slots: query.parameters.map((p) =>
          typeof p === 'string' && p.startsWith(marker) ? (p.slice(marker.length) as K) : { literal: p },
        ),
      };
      compiled.set(executor.adapter.constructor, template);
    }
    const parameters = template.slots.map((slot) => (typeof slot === 'string' ? values[slot] : slot.literal));
    const direct = nativeFor(db)?.tryAll(template.sql, parameters);
    if (direct !== undefined) return direct as Row[];
    const result = await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}
