import { sql } from 'kysely';
import type { PortableMigration } from './types.js';

// One index entry a component, half the size (issue 27, item 5). 014's unique index,
// (org, name, key), held each component's name beside its key: ~56 of the ~60 bytes of an
// entry, on pages that random inserts leave about 70 % full. A key now starts with 3 bytes of
// its name (namePrefix in src/sbom/parse/component-rows.ts: its first character, then 16 bits of
// a digest of it), followed by the first 13 bytes of the content digest it held: ordered by name
// first, one unique index, (org, key), finds a stored component by its content and serves search
// by name through a range of keys (namedKeyRange). A stored key's first 13 bytes are those 13
// bytes, so each row is re-keyed from its name and its key alone; its id, which revisions list,
// is kept.

const ROWS_PER_STEP = 2_000;

/** Frozen copies of namePrefix as 016 shipped (test/db/migration-016.test.ts compares). */
function nameDigest(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) break;
    h = Math.imul(h ^ c, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function namePrefix(text: string): number {
  const first = text.length === 0 ? 0 : Math.min(text.charCodeAt(0), 0xff);
  return (first << 16) | (nameDigest(text) & 0xffff);
}

/** The key 016 gives a component stored under 014's key (the first 16 bytes of its SHA-256). */
function rekeyed(name: string, key: Uint8Array): Buffer {
  const out = Buffer.alloc(16);
  out.writeUIntBE(namePrefix(name), 0, 3);
  out.set(key.subarray(0, 13), 3);
  return out;
}

/** For the test that holds these copies to the live code. */
export const frozen016 = { namePrefix, rekeyed };

export const namePrefixedKeys: PortableMigration = {
  name: '016-name-prefixed-keys',
  async up(db, t) {
    const binary = sql.raw(t.uuid === 'uuid' ? 'bytea' : 'blob');
    await db.schema.dropIndex('components_org_name_key').execute();
    for (let after = 0; ; ) {
      const rows: Array<{ id: number; name: string; key: Uint8Array }> = await db
        .selectFrom('components')
        .select(['id', 'name', 'key'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(ROWS_PER_STEP)
        .execute();
      if (rows.length === 0) break;
      // VALUES' columns are column1, column2… on both backends; typed, as PostgreSQL would
      // otherwise read the parameters as text.
      const values = sql.join(rows.map((r) => sql`(cast(${Number(r.id)} as integer), cast(${rekeyed(r.name, r.key)} as ${binary}))`));
      await sql`
        update components set key = v.key
        from (select column1 as id, column2 as key from (values ${values}) as x) as v
        where components.id = v.id`.execute(db);
      after = Number(rows[rows.length - 1]!.id);
    }
    await db.schema.createIndex('components_org_key').on('components').columns(['org', 'key']).unique().execute();
  },
};
