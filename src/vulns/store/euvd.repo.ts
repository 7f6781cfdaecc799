import type { Database, Executor, Trx } from '../../db/index.js';
import type { EuvdPair } from '../feeds/euvd.js';

// The EUVD's mapping (firmware.md, Feeds): a CVE's EUVD id, platform-wide. The exploited list is
// kept with the KEV catalogues (kev_entries, source 'euvd'), which the bridge to Article 14 reads.

const IN_CHUNK = 500;

export const euvdRepo = {
  /** The stored EUVD id of each of `cves` that has one. */
  async idsOf(db: Executor, cves: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < cves.length; i += IN_CHUNK) {
      const rows = await db
        .selectFrom('euvd_ids')
        .select(['cve', 'euvd'])
        .where('cve', 'in', cves.slice(i, i + IN_CHUNK))
        .execute();
      for (const r of rows) out.set(r.cve, r.euvd);
    }
    return out;
  },

  /** Stores these pairs, replacing the EUVD ids their CVEs had. */
  async upsert(database: Database, trx: Trx, pairs: readonly EuvdPair[]): Promise<void> {
    for (let i = 0; i < pairs.length; i += IN_CHUNK) {
      const chunk = pairs.slice(i, i + IN_CHUNK);
      await trx
        .deleteFrom('euvd_ids')
        .where(
          'cve',
          'in',
          chunk.map((p) => p.cve),
        )
        .execute();
      await database.bulkInsert(
        trx,
        'euvd_ids',
        ['cve', 'euvd'],
        chunk.flatMap((p) => [p.cve, p.euvd]),
      );
    }
  },

  /** EUVD ids held, and entries of the exploited list. */
  async count(db: Executor): Promise<number> {
    const [ids, exploited] = await Promise.all([
      db
        .selectFrom('euvd_ids')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('kev_entries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('source', '=', 'euvd')
        .executeTakeFirstOrThrow(),
    ]);
    return Number(ids.n) + Number(exploited.n);
  },
};
