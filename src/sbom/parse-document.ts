import secureJsonParse from 'secure-json-parse';
import { AppError } from '../errors.js';

/**
 * Whether the text could hold a prototype-poisoning key. Any such key contains `__proto__` or
 * `constructor` as written, or is spelled with a \u escape; three substring searches rule that
 * out faster than secure-json-parse's patterns scan a document of megabytes.
 */
function mayBePoisoned(text: string): boolean {
  return text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
}

/**
 * The document's bytes → a JSON value. Rejects what is not UTF-8 JSON, and prototype-poisoning
 * keys (`__proto__`, `constructor.prototype`) anywhere in it, as invalid_json.
 */
export function parseDocument(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw new AppError('invalid_json', 'the body is empty; a JSON SBOM document is expected');
  try {
    if (!mayBePoisoned(text)) return JSON.parse(text) as unknown;
    return secureJsonParse.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const poisoned = error instanceof SyntaxError && /prototype/i.test(error.message);
    throw new AppError(
      'invalid_json',
      poisoned ? 'the document uses a prototype-poisoning key (__proto__ or constructor.prototype)' : 'the document is not valid JSON',
    );
  }
}
