import type { Database, Executor, Trx } from '../../db/index.js';
import type { NvdRecord } from '../feeds/nvd-record.js';
import type { PreparedNvdRecord } from '../feeds/prepare-nvd.js';

// The platform-wide NVD tables (firmware.md, Feeds): one row per CVE record, apart from OSV's,
// with the vendor:product keys its criteria name ('*' when a criterion names every product),
// so that a changed record is matched again only against the components sharing one of them.

const IN_CHUNK = 500;
/** The key a record is indexed under when some criterion's vendor or product is ANY or a pattern. */
export const EVERY_PRODUCT = '*';

async function inChunks<T, R>(items: readonly T[], run: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += IN_CHUNK) out.push(...(await run(items.slice(i, i + IN_CHUNK))));
  return out;
}

/** The keys a record is indexed under. */
export function productKeysOf(record: Pick<NvdRecord, 'productKeys' | 'everyProduct'>): string[] {
  return record.everyProduct ? [...record.productKeys, EVERY_PRODUCT] : record.productKeys;
}

export const nvdRepo = {
  /** The stored digest and withdrawal of each of `cves` that is stored. */
  heads(db: Executor, cves: readonly string[]): Promise<Array<{ cve: string; digest: string; withdrawn: string | null }>> {
    return inChunks(cves, (chunk) =>
      db.selectFrom('nvd_records').select(['cve', 'digest', 'withdrawn']).where('cve', 'in', chunk).execute(),
    );
  },

  /** The product keys each of `cves` is indexed under now (before it is replaced). */
  async productKeysOf(db: Executor, cves: readonly string[]): Promise<string[]> {
    const rows = await inChunks(cves, (chunk) =>
      db.selectFrom('nvd_record_products').select('product_key').where('cve', 'in', chunk).execute(),
    );
    return rows.map((r) => r.product_key);
  },

  /** Stores `records` (new or changed), replacing what was stored under the CVEs in `stored`. */
  async replaceRecords(database: Database, trx: Trx, records: readonly PreparedNvdRecord[], stored: readonly string[], at: string) {
    for (let i = 0; i < stored.length; i += IN_CHUNK) {
      const chunk = stored.slice(i, i + IN_CHUNK);
      await trx.deleteFrom('nvd_record_products').where('cve', 'in', chunk).execute();
      await trx.deleteFrom('nvd_records').where('cve', 'in', chunk).execute();
    }
    const rows: unknown[] = [];
    const products: unknown[] = [];
    for (const r of records) {
      rows.push(
        r.id,
        r.digest,
        r.status,
        r.summary,
        r.cvss?.score ?? null,
        r.cvss?.vector ?? null,
        r.cvss?.source ?? null,
        r.configurations,
        r.cisaExploitAdd,
        r.references,
        r.published,
        r.modified,
        r.withdrawn,
        at,
      );
      for (const key of productKeysOf(r)) products.push(key, r.id);
    }
    const columns = [
      'cve',
      'digest',
      'status',
      'summary',
      'cvss_score',
      'cvss_vector',
      'cvss_source',
      'configurations',
      'cisa_exploit_add',
      'references',
      'published',
      'modified',
      'withdrawn',
      'imported_at',
    ] as const;
    await database.bulkInsert(trx, 'nvd_records', columns, rows);
    await database.bulkInsert(trx, 'nvd_record_products', ['product_key', 'cve'], products);
  },

  /** What the NVD says of these CVEs' groups (withdrawn records left out). */
  liveRecords(db: Executor, cves: readonly string[]) {
    return inChunks(cves, (chunk) =>
      db
        .selectFrom('nvd_records')
        .select(['cve', 'summary', 'cvss_score', 'cvss_vector', 'cvss_source', 'cisa_exploit_add'])
        .where('cve', 'in', chunk)
        .where('withdrawn', 'is', null)
        .execute(),
    );
  },

  /** Which of `cves` a live NVD record holds. */
  async liveAmong(db: Executor, cves: readonly string[]): Promise<string[]> {
    const rows = await inChunks(cves, (chunk) =>
      db.selectFrom('nvd_records').select('cve').where('cve', 'in', chunk).where('withdrawn', 'is', null).execute(),
    );
    return rows.map((r) => r.cve);
  },

  /**
   * The components (by organisation) matched under any of `productKeys`: those whose findings a
   * change of records indexed under them may change. EVERY_PRODUCT among them means every
   * component that has a CPE key at all.
   */
  async componentsUnder(db: Executor, productKeys: readonly string[]): Promise<Map<string, Set<number>>> {
    const byOrg = new Map<string, Set<number>>();
    const every = productKeys.includes(EVERY_PRODUCT);
    const keys = every ? [null] : [...new Set(productKeys)];
    for (let i = 0; i < keys.length; i += IN_CHUNK) {
      let query = db
        .selectFrom('component_cpe_keys as k')
        .innerJoin('components as c', 'c.id', 'k.component_id')
        .innerJoin('organisations as o', 'o.number', 'c.org')
        .select(['o.id as org_id', 'c.id'])
        .distinct();
      if (!every) query = query.where('k.product_key', 'in', keys.slice(i, i + IN_CHUNK) as string[]);
      for (const row of await query.execute()) {
        const set = byOrg.get(row.org_id) ?? new Set<number>();
        set.add(Number(row.id));
        byOrg.set(row.org_id, set);
      }
    }
    return byOrg;
  },

  /** NVD records held (withdrawn excluded). */
  async count(db: Executor): Promise<number> {
    const row = await db
      .selectFrom('nvd_records')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('withdrawn', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};
