/** True when a write failed on a UNIQUE constraint (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

// Network failures, and PostgreSQL's "shutting down / starting up / too many connections /
// connection lost / cancelled by statement_timeout" (57P0x, 53300, 08xxx, 57014).
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '57014',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
/**
 * SQLite's storage failures: the disk is full, the file or its folder is read-only, an I/O
 * error, the file cannot be opened, another process holds the lock (extended codes such as
 * SQLITE_READONLY_DBMOVED or SQLITE_IOERR_WRITE start with these).
 */
const SQLITE_STORAGE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|PROTOCOL)/;
// node-postgres raises these as plain Errors without a code.
const PG_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|timeout expired|Query read timeout|Client has encountered a connection error|Connection is closed/i;

/** True when the database could not be reached, answered too late or cannot write: worth retrying later. */
export function isUnavailable(error: unknown): boolean {
  const err = error as { code?: unknown; message?: unknown } | null;
  if (typeof err?.code === 'string' && (CONNECTION_CODES.has(err.code) || SQLITE_STORAGE.test(err.code))) return true;
  return typeof err?.message === 'string' && PG_MESSAGES.test(err.message);
}

/** A short, stable description of an unavailability cause for one log line: `SQLITE_FULL: database or disk is full`. */
export function describeCause(error: unknown): string {
  const err = error as { code?: unknown; message?: unknown } | null;
  const message = typeof err?.message === 'string' ? err.message : String(error);
  return typeof err?.code === 'string' ? `${err.code}: ${message}` : message;
}
