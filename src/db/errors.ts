/** True when a write failed on a UNIQUE constraint (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'SQLITE_BUSY', '57P01', '57P02', '57P03', '08000', '08003', '08006']);

/** True when the database could not be reached or is shutting down: worth retrying later. */
export function isUnavailable(error: unknown): boolean {
  const err = error as { code?: unknown; message?: unknown } | null;
  if (typeof err?.code === 'string' && CONNECTION_CODES.has(err.code)) return true;
  return typeof err?.message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error/i.test(err.message);
}
