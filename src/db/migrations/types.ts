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

/** Key material a migration may need to seal what older versions stored in the clear. */
export interface MigrationSecrets {
  /** CONSOLE_SECRET, or on SQLite the key generated beside the database; null when neither. */
  consoleSecret: string | null;
}

/** One migration, written once for both dialects. */
export interface PortableMigration {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was then, not today's DB type
  up(db: Kysely<any>, t: ColumnTypes, secrets?: MigrationSecrets): Promise<void>;
}
