import secureJsonParse from 'secure-json-parse';
import { AppError } from '../errors.js';

/**
 * The document's bytes → a JSON value. Rejects what is not UTF-8 JSON, and prototype-poisoning
 * keys (`__proto__`, `constructor.prototype`) anywhere in it, as invalid_json.
 */
export function parseDocument(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw new AppError('invalid_json', 'the body is empty; a JSON SBOM document is expected');
  try {
    return secureJsonParse.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const poisoned = error instanceof SyntaxError && /prototype/i.test(error.message);
    throw new AppError('invalid_json', poisoned ? 'the document uses a prototype-poisoning key (__proto__ or constructor.prototype)' : 'the document is not valid JSON');
  }
}
