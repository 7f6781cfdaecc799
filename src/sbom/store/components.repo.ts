import { sql } from 'kysely';
import type { Database, Executor, Trx } from '../../db/index.js';
import type { ComponentFields } from '../parse/component-rows.js';
import { ABBREVIATION_MARK, decodeKeys, FORMS, KEY_BYTES, LIBRARY, namedKeyRange } from '../parse/component-rows.js';
import { KEY_STRIDE, type ReadingColumns } from '../parse/read-sbom.js';
import { decodeIds, encodeIds } from './id-list.js';

/** Ids per query (byIds): short statements, so a read never holds the event loop for long. */
export const LOOKUP_CHUNK = 500;

/** The columns of a component's text (component-rows.ts), in its order. */
const TEXT_COLUMNS = ['name', 'version', 'purl', 'type', 'licenses', 'ref', 'cpes'] as const;

export interface StoredComponent extends ComponentFields {
  id: number;
}

/** `column` of the components row `alias` with its name@version put back where the mark is. */
const unmarked = (alias: string, column: 'purl' | 'ref') =>
  sql`replace(${sql.ref(`${alias}.${column}`)}, ${ABBREVIATION_MARK}, ${sql.ref(`${alias}.name`)} || '@' || ${sql.ref(`${alias}.version`)})`;

/** Whether `forms` of the components row `alias` holds `form`. */
const holds = (alias: string, form: number) => sql`(${sql.ref(`${alias}.forms`)} & ${sql.lit(form)}) <> 0`;

/**
 * The purl of the components row `alias` as it was sent: stored abbreviated where `forms` says
 * so (component-rows.ts, abbreviate). Every read of a purl goes through it.
 */
export function purlColumn(alias: string) {
  return sql<
    string | null
  >`case when ${holds(alias, FORMS.purlAbbreviated)} then ${unmarked(alias, 'purl')} else ${sql.ref(`${alias}.purl`)} end`;
}

/** The ref (bom-ref, SPDXID) of the components row `alias` as it was sent (as purlColumn). */
export function refColumn(alias: string) {
  return sql<string | null>`case when ${holds(alias, FORMS.refIsPurl)} then ${purlColumn(alias)}
    when ${holds(alias, FORMS.refAbbreviated)} then ${unmarked(alias, 'ref')} else ${sql.ref(`${alias}.ref`)} end`;
}

/** The type of the components row `alias` as it was sent (stored empty for FORMS.typeLibrary; an absent one, null or empty). */
export function typeColumn(alias: string) {
  return sql<
    string | null
  >`case when ${holds(alias, FORMS.typeLibrary)} then ${sql.lit(LIBRARY)} else nullif(${sql.ref(`${alias}.type`)}, '') end`;
}

/** The licences of the components row `alias` as their JSON list (stored as the one licence for FORMS.licenceBare). */
export function licencesColumn(alias: string) {
  return sql<
    string | null
  >`case when ${holds(alias, FORMS.licenceBare)} then '["' || ${sql.ref(`${alias}.licenses`)} || '"]' else ${sql.ref(`${alias}.licenses`)} end`;
}

/**
 * Whether the components row `alias` is named `name`: through the range of keys its name's bytes
 * start (the unique (org, key) index; migration 016), then by the name itself.
 */
export function named(alias: string, name: string) {
  const [low, high] = namedKeyRange(name);
  return sql<boolean>`${sql.ref(`${alias}.key`)} between ${low} and ${high} and ${sql.ref(`${alias}.name`)} = ${name}`;
}

/** The organisation's number (organisations.number), which its components store, as a scalar subquery. */
export const orgNumber = (orgId: string) => sql<number>`(select number from organisations where id = ${orgId})`;

/**
 * The read document's components at `positions` (or all of its rows when `positions` lists each
 * once in order) as packed rows: only those, so a revision with a few new components sends a
 * few texts to the writer, not the document's.
 */
function packed(reading: ReadingColumns, positions: readonly number[], org: number) {
  let { texts, offsets } = reading;
  let differs = reading.purlNameDiffers;
  let forms = reading.forms;
  const all = positions.length === reading.count && positions.every((i, p) => i === p);
  if (!all) {
    // Each chosen text copied after the one before: row p of the packed rows is positions[p].
    let bytes = 0;
    for (const i of positions) bytes += reading.offsets[i + 1]! - reading.offsets[i]!;
    texts = new Uint8Array(bytes);
    offsets = new Uint32Array(positions.length + 1);
    differs = new Uint8Array(positions.length);
    forms = new Uint8Array(positions.length);
    let at = 0;
    positions.forEach((i, p) => {
      offsets[p] = at;
      texts.set(reading.texts.subarray(reading.offsets[i]!, reading.offsets[i + 1]!), at);
      at += reading.offsets[i + 1]! - reading.offsets[i]!;
      differs[p] = reading.purlNameDiffers[i]!;
      forms[p] = reading.forms[i]!;
    });
    offsets[positions.length] = at;
  }
  return {
    table: 'components',
    unique: ['org', 'key'],
    shared: { org },
    textColumns: TEXT_COLUMNS,
    // A component's name is never null: one without a name is stored with an empty one. A type
    // is stored empty rather than null (FORMS.typeLibrary; one byte, where a null costs a
    // PostgreSQL row its null bitmap, 8 bytes once aligned).
    keepEmpty: ['name', 'type'],
    texts,
    offsets,
    binary: { column: 'key', bytes: decodeKeys(reading.keys, KEY_STRIDE, positions), width: KEY_BYTES },
    integers: [
      { column: 'purl_name_differs', values: differs },
      { column: 'forms', values: forms },
    ],
    rows: Uint32Array.from(positions, (_, p) => p),
  };
}

export const componentsRepo = {
  /** The organisation's number, which its components store. */
  async orgNumber(db: Executor, orgId: string): Promise<number> {
    const row = await db.selectFrom('organisations').select('number').where('id', '=', orgId).executeTakeFirstOrThrow();
    return Number(row.number);
  },

  /**
   * The ids of the read components at `positions`, in that order: each found by its
   * content (the unique (org, key) index) or stored, all in one transaction of their own
   * (Database.findOrInsert). A component listed twice is stored once, and both get its id.
   */
  findOrInsert(database: Database, org: number, reading: ReadingColumns, positions: readonly number[]): Promise<Float64Array> {
    return database.findOrInsert(packed(reading, positions, org));
  },

  async byIds(db: Executor, orgId: string, ids: readonly number[]): Promise<Map<number, StoredComponent>> {
    const out = new Map<number, StoredComponent>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += LOOKUP_CHUNK) {
      const rows = await db
        .selectFrom('components as c')
        .select([
          'c.id',
          'c.name',
          'c.version',
          purlColumn('c').as('purl'),
          typeColumn('c').as('type'),
          licencesColumn('c').as('licenses'),
          refColumn('c').as('ref'),
          'c.cpes',
        ])
        .where('c.org', '=', orgNumber(orgId))
        .where('c.id', 'in', unique.slice(i, i + LOOKUP_CHUNK))
        .execute();
      for (const row of rows) out.set(Number(row.id), { ...row, id: Number(row.id) });
    }
    return out;
  },

  async insertMembers(trx: Trx, sbomId: string, ids: ArrayLike<number>): Promise<void> {
    await trx
      .insertInto('sbom_members')
      .values({ sbom_id: sbomId, component_ids: encodeIds(ids) })
      .execute();
  },

  /** The revision's component ids in document order (empty for an unknown revision or another organisation's). */
  async memberIds(db: Executor, orgId: string, sbomId: string): Promise<number[]> {
    const row = await db
      .selectFrom('sbom_members as m')
      .innerJoin('sbom_revisions as s', 's.id', 'm.sbom_id')
      .select('m.component_ids')
      .where('m.sbom_id', '=', sbomId)
      .where('s.org_id', '=', orgId)
      .executeTakeFirst();
    return row ? decodeIds(row.component_ids) : [];
  },

  /** The revision's components in document order, as stored. */
  async ofRevision(db: Executor, orgId: string, sbomId: string): Promise<StoredComponent[]> {
    const ids = await componentsRepo.memberIds(db, orgId, sbomId);
    const byId = await componentsRepo.byIds(db, orgId, ids);
    return ids.map((id) => byId.get(id)!);
  },
};
