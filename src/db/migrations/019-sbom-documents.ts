import { sql } from 'kysely';
import type { PortableMigration } from './types.js';

// The SBOM document as received (sbom-conformance.md, "The document as received"): the exact
// bytes a pipeline pushed, compressed, stored once per SHA-256 however many revisions (of
// however many products and organisations) hold them. A revision's document is the row whose
// digest is the revision's own `digest`: no row for a revision ingested before this migration.
// Read only through the revision that names it, so a digest alone gives nothing away.
export const sbomDocuments: PortableMigration = {
  name: '019-sbom-documents',
  async up(db, t) {
    const binary = sql.raw(t.uuid === 'uuid' ? 'bytea' : 'blob');
    await db.schema
      .createTable('sbom_documents')
      // SHA-256 (hex) of the bytes as received: the revisions' `digest`.
      .addColumn('digest', 'text', (c) => c.primaryKey())
      // How `content` is compressed: 'br' (brotli).
      .addColumn('encoding', 'text', (c) => c.notNull())
      // Bytes as received, and as stored.
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('stored_size', 'integer', (c) => c.notNull())
      .addColumn('content', binary, (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
  },
};
