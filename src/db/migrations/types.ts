import type { Kysely } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** Column types that differ between the two databases; everything else is portable SQL. */
export interface ColumnTypes {
  timestamp: 'timestamptz' | 'text';
  uuid: 'uuid' | 'text';
}

export function columnTypes(dialect: DialectName): ColumnTypes {
  return dialect === 'postgres'
    ? { timestamp: 'timestamptz', uuid: 'uuid' }
    : { timestamp: 'text', uuid: 'text' };
}

/** One migration, written once for both dialects. */
export interface PortableMigration {
  name: string;
  up(db: Kysely<any>, t: ColumnTypes): Promise<void>;
}
