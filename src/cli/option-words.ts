import { AppError } from '../errors.js';

/**
 * A service's validation error in a command's own words, chosen by the field it concerns (its
 * first detail): a service names its input's field, each door says it its way, and the CLI's
 * way names its options. Any other error is handed back as it is.
 */
export function inOptionWords(error: unknown, words: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof AppError) || error.code !== 'validation_failed') return error;
  const field = error.details?.[0]?.path;
  return field !== undefined && Object.hasOwn(words, field) ? new AppError(error.code, words[field]!, error.details) : error;
}
