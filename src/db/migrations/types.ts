import type { Kysely } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** Column types that differ between the two databases; everything else is portable SQL. */
export interface ColumnTypes {
  timestamp: 'timestamptz' | 'text';
  uuid: 'uuid' | 'text';
}

export function columnTypes(dialect: DialectName): ColumnTypes {
  return dialect === 'postgres' ? { timestamp: 'timestamptz', uuid: 'uuid' } : { timestamp: 'text', uuid: 'text' };
}

/** One migration, written once for both dialects. */
export interface PortableMigration {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's DB type
  up(db: Kysely<any>, t: ColumnTypes): Promise<void>;
}
