import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Database, Trx } from '../db/index.js';
import type { SecretBox } from '../shared/secret-box.js';
import { disclosureRepo } from './disclosure.repo.js';

// Disclosure attachments at rest, sealed (AES-256-GCM under a key from CONSOLE_SECRET): on the
// embedded default in files under ATTACHMENTS_DIR (beside the SQLite database), with
// PostgreSQL in PostgreSQL, so every instance reads them. The storage key is made here and
// handed back only to be written into the attachment's row; no caller shows it anywhere.

export interface AttachmentStore {
  /** A fresh storage key. */
  newKey(): string;
  /** Before the transaction: the file store writes the sealed file here (outside any lock). */
  stage(key: string, bytes: Buffer): Promise<void>;
  /** Inside the report's transaction: the database store writes the sealed bytes here. */
  save(trx: Trx, key: string, bytes: Buffer, at: string): Promise<void>;
  /** Takes back what `stage` wrote when the transaction failed. */
  discard(key: string): Promise<void>;
  read(key: string): Promise<Buffer>;
}

/** `attachments/` beside the SQLite file of `databaseUrl`, unless ATTACHMENTS_DIR says otherwise; null on PostgreSQL. */
export function attachmentsDirFor(databaseUrl: string, configured: string | null): string | null {
  if (configured) return resolve(configured);
  if (!databaseUrl.startsWith('sqlite:')) return null;
  const path = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  if (path === ':memory:') return null;
  return join(dirname(resolve(path)), 'attachments');
}

const KEY_SHAPE = /^[A-Za-z0-9_-]{32}$/;

export function createAttachmentStore(database: Database, box: SecretBox, dir: string | null): AttachmentStore {
  const newKey = () => randomBytes(24).toString('base64url');
  if (database.dialect === 'postgres') {
    return {
      newKey,
      async stage() {},
      async save(trx, key, bytes, at) {
        await disclosureRepo.putBlob(trx, key, box.sealBytes(bytes), at);
      },
      async discard() {},
      async read(key) {
        const sealed = await disclosureRepo.blob(database.db, key);
        if (!sealed) throw new Error('attachment bytes missing from the store');
        return box.openBytes(sealed);
      },
    };
  }
  if (!dir) throw new Error('attachments on SQLite need a directory (ATTACHMENTS_DIR)');
  // The directory is made with the first attachment, not by every cra-admin run.
  // Keys are made here, but a path is built from one only after its shape is checked.
  const fileOf = (key: string) => {
    if (!KEY_SHAPE.test(key)) throw new Error('not a storage key');
    return join(dir, key.slice(0, 2), key);
  };
  return {
    newKey,
    async stage(key, bytes) {
      const file = fileOf(key);
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      await writeFile(file, box.sealBytes(bytes), { mode: 0o600, flag: 'wx', flush: true });
    },
    async save() {},
    async discard(key) {
      await rm(fileOf(key), { force: true });
    },
    async read(key) {
      return box.openBytes(await readFile(fileOf(key)));
    },
  };
}
