import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ErrorDetail } from '../../errors.js';
import { MAX_DETAILS, pointer } from './json-checks.js';
import { FAST_PATTERN_KEYWORD, FAST_PATTERNS, withFastPatterns } from './fast-patterns.js';
import { STRING_ENUM_KEYWORD, withSetEnums } from './large-enums.js';
import { findDuplicate } from './find-duplicate.js';
import { UNIQUE_KEYWORD, withLinearUniqueItems } from './unique-items.js';

// CycloneDX JSON is validated against the official schemas shipped by @cyclonedx/cyclonedx-library
// (the same files and ajv options as its JsonValidator), with uniqueItems checked in linear time.

export const CYCLONEDX_VERSIONS = ['1.2', '1.3', '1.4', '1.5', '1.6', '1.7'] as const;
export type CycloneDxVersion = (typeof CYCLONEDX_VERSIONS)[number];

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function schemaDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')), 'res', 'schema');
}

function readSchema(dir: string, file: string): Record<string, unknown> {
  return withFastPatterns(
    withSetEnums(withLinearUniqueItems(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>)),
  );
}

/**
 * ajv's generated code hands each subschema's function, and each custom keyword, an object
 * naming where it is, `{instancePath: instancePath + "/components/" + i0, parentData, ...}`,
 * built anew at every call: validating 10,000 components built some 60,000 of them with their
 * path strings, a quarter of the ~9 MB that validation allocated. They serve error paths, `$data`
 * and the keywords that modify data (defaults, coercion, removal), none of which the fast
 * validator has: its errors are never read (only its verdict; the detailed one names the
 * problems), these schemas use no `$data`, and those options are off. So its calls pass none,
 * and the callee takes its defaults (an empty path). Code that does not match is left as it is.
 */
export function withoutCallContexts(code: string): string {
  return code.replace(CALL_CONTEXT, 'undefined');
}
// An argument (after ", "), never an error object ({instancePath, schemaPath, ..., params: {...}}).
const CALL_CONTEXT = /(?<=, )\{instancePath:instancePath\+[^{};]*?,parentData:[\w$.[\]]+,parentDataProperty:[^,{}();]+,rootData\}/g;

/**
 * A keyword standing in for a standard one that ajv checks slowly (large-enums.ts,
 * fast-patterns.ts): `compile` turns the keyword's value into a test of the data, and the error
 * a failing test reports is the one the standard keyword reports. Made anew at each failure:
 * ajv fills in the paths of the error objects it is given.
 */
function addStandIn<S>(
  ajv: Ajv,
  keyword: string,
  schemaType: 'array' | 'string',
  type: 'string' | undefined,
  compile: (value: S) => [test: (data: unknown) => boolean, error: () => Partial<ErrorObject>],
): void {
  ajv.addKeyword({
    keyword,
    schemaType,
    ...(type ? { type } : {}),
    errors: true,
    compile(value: S) {
      const [test, error] = compile(value);
      const check = (data: unknown): boolean => {
        if (test(data)) return true;
        check.errors = [error()];
        return false;
      };
      check.errors = undefined as Partial<ErrorObject>[] | undefined;
      return check;
    },
  });
}

/**
 * ajv's code for allErrors gathers the errors of each subschema and keyword it calls with
 * `vErrors = vErrors === null ? f.errors : vErrors.concat(f.errors)`, a new array each time: for a
 * document whose components each fail, quadratic in their number (16,000 such components took
 * 4 s, 120,000 never finished). The detailed validator appends them instead, into an array of its
 * own. Code that does not match is left as it is.
 */
export function withAppendedErrors(code: string): string {
  return code.replace(
    GATHERED_ERRORS,
    (_, errors: string) => `if(vErrors === null){vErrors = ${errors}.slice();}else{for(const e$ of ${errors}){vErrors.push(e$);}}`,
  );
}
const GATHERED_ERRORS = /vErrors = vErrors === null \? ([\w$.]+\.errors) : vErrors\.concat\(\1\);/g;

function createAjv(dir: string, allErrors: boolean): Ajv {
  const ajv = new Ajv({
    useDefaults: false,
    coerceTypes: false,
    removeAdditional: false,
    strict: false,
    strictSchema: false,
    addUsedSchema: false,
    allErrors,
    code: { process: allErrors ? withAppendedErrors : withoutCallContexts },
    logger: false,
    loadSchema: (uri: string) => Promise.reject(new Error(`remote schemas are disabled: ${uri}`)),
  });
  addFormats(ajv);
  // No maintained implementation exists for these two (the library accepts them as well).
  ajv.addFormat('idn-email', true);
  ajv.addFormat('iri-reference', true);
  ajv.addKeyword({
    keyword: UNIQUE_KEYWORD,
    type: 'array',
    schemaType: 'boolean',
    errors: true,
    validate: function unique(this: unknown, _schema: boolean, data: unknown[], _parent: unknown, ctx?: { instancePath: string }) {
      const duplicate = findDuplicate(data);
      if (!duplicate) return true;
      (unique as { errors?: Partial<ErrorObject>[] }).errors = [
        {
          keyword: 'uniqueItems',
          instancePath: `${ctx?.instancePath ?? ''}/${duplicate.index}`,
          message: `duplicates item ${duplicate.firstIndex} (items must be unique)`,
          params: {},
        },
      ];
      return false;
    },
  });
  addStandIn<string[]>(ajv, STRING_ENUM_KEYWORD, 'array', undefined, (values) => {
    const allowed = new Set(values);
    return [
      (data) => typeof data === 'string' && allowed.has(data),
      () => ({ keyword: 'enum', message: 'must be equal to one of the allowed values', params: { allowedValues: values } }),
    ];
  });
  addStandIn<string>(ajv, FAST_PATTERN_KEYWORD, 'string', 'string', (pattern) => {
    const matches = FAST_PATTERNS.get(pattern)!;
    return [
      (data) => matches(data as string),
      () => ({ keyword: 'pattern', message: `must match pattern "${pattern}"`, params: { pattern } }),
    ];
  });
  // The bom schemas $ref these by file name, relative to http://cyclonedx.org/schema/.
  for (const file of ['spdx.SNAPSHOT.schema.json', 'jsf-0.82.SNAPSHOT.schema.json', 'cryptography-defs.SNAPSHOT.schema.json']) {
    ajv.addSchema(readSchema(dir, file), `http://cyclonedx.org/schema/${file}`);
  }
  return ajv;
}

/**
 * Two compilations per version: `fast` stops at the first failure (allErrors costs ~40% more on
 * a valid document, the common case); `detailed` collects every failure and runs only on a
 * document `fast` rejected, to report them all. Same schemas and keywords, so both agree on validity.
 */
type Mode = 'fast' | 'detailed';
const instances = new Map<Mode, Ajv>();
const compiled = new Map<string, ValidateFunction>();
let dir: string | undefined;

/** Compiled once per version and mode on first use (~0.1–0.3 s each), then cached for the process. */
export function cycloneDxValidator(version: CycloneDxVersion, mode: Mode = 'fast'): ValidateFunction {
  const key = `${mode} ${version}`;
  let validate = compiled.get(key);
  if (!validate) {
    dir ??= schemaDir();
    let ajv = instances.get(mode);
    if (!ajv) {
      ajv = createAjv(dir, mode === 'detailed');
      instances.set(mode, ajv);
    }
    validate = ajv.compile(readSchema(dir, `bom-${version}.SNAPSHOT.schema.json`));
    compiled.set(key, validate);
  }
  return validate;
}

/** Whether the fast validator of this version is compiled already (for the warm-up). */
export function isCycloneDxValidatorReady(version: CycloneDxVersion): boolean {
  return compiled.has(`fast ${version}`);
}

/** ajv errors → JSON pointers into the document. */
export function errorDetails(errors: readonly ErrorObject[]): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const params = e.params as Record<string, unknown>;
    let path = e.instancePath;
    if (typeof params.missingProperty === 'string') path = pointer(path, params.missingProperty);
    if (typeof params.additionalProperty === 'string') path = pointer(path, params.additionalProperty);
    const detail = { path: path || '/', message: e.message ?? 'is invalid' };
    const key = `${detail.path}\n${detail.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(detail);
    if (details.length === MAX_DETAILS) break;
  }
  return details;
}

/**
 * Items of a top-level array that one detailed run looks at. A detailed run gathers every error
 * of what it is given, and only MAX_DETAILS are reported: over 120,000 failing components it
 * gathered some 800,000 error objects (2 s, ~0.5 GB) to report 50.
 */
export const DETAIL_WINDOW = 256;

/** The errors of a document `fast` rejected, as details. */
function detailsOf(version: CycloneDxVersion, document: unknown): ErrorDetail[] {
  const detailed = cycloneDxValidator(version, 'detailed');
  return detailed(document) ? [] : errorDetails(detailed.errors ?? []);
}

/** `detail` of a window of `array` that starts at item `from`, as a detail of the whole document. */
function shifted(detail: ErrorDetail, array: string, from: number): ErrorDetail {
  const prefix = `${pointer('', array)}/`;
  if (!detail.path.startsWith(prefix)) return detail;
  const rest = detail.path.slice(prefix.length);
  const end = rest.includes('/') ? rest.indexOf('/') : rest.length;
  if (!/^\d+$/.test(rest.slice(0, end))) return detail;
  const path = `${prefix}${Number(rest.slice(0, end)) + from}${rest.slice(end)}`;
  // A duplicate item of the window itself names the earlier one by its index in the window too;
  // one of an array inside an item (a component's dependsOn) by its index in that array.
  if (end < rest.length) return { path, message: detail.message };
  const message = detail.message.replace(/^duplicates item (\d+)/, (_, i: string) => `duplicates item ${Number(i) + from}`);
  return { path, message };
}

/**
 * Where a document `fast` rejected fails, found in bounded work: its large top-level arrays that
 * the schema names (components, dependencies, ...) are cut to their first DETAIL_WINDOW items, where most
 * documents fail; if that passes, each is searched window by window with `fast` (linear, cheap)
 * and only the first failing window is validated in detail, its paths shifted back. A document
 * whose every window passes fails across windows (a duplicate far apart) or where nothing was
 * cut, and is validated whole.
 */
function boundedDetails(version: CycloneDxVersion, document: unknown): ErrorDetail[] {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return detailsOf(version, document);
  const doc = document as Record<string, unknown>;
  const fast = cycloneDxValidator(version, 'fast');
  // Only the arrays the schema names (a dozen at most): CycloneDX 1.2 and 1.3 let a document carry
  // keys of its own, thousands of them, which no schema checks and which cannot fail.
  const named = (fast.schema as { properties?: Record<string, unknown> }).properties ?? {};
  const large = Object.keys(named).filter((key) => Array.isArray(doc[key]) && (doc[key] as unknown[]).length > DETAIL_WINDOW);
  if (large.length === 0) return detailsOf(version, doc);
  // One object, its arrays swapped in place: a copy per window would copy every key each time.
  const probe: Record<string, unknown> = { ...doc };
  for (const key of large) probe[key] = (doc[key] as unknown[]).slice(0, DETAIL_WINDOW);
  if (!fast(probe)) return detailsOf(version, probe);
  for (const key of large) {
    const items = doc[key] as unknown[];
    const head = probe[key];
    for (let from = DETAIL_WINDOW; from < items.length; from += DETAIL_WINDOW) {
      probe[key] = items.slice(from, from + DETAIL_WINDOW);
      if (!fast(probe)) return detailsOf(version, probe).map((detail) => shifted(detail, key, from));
    }
    probe[key] = head;
  }
  return detailsOf(version, doc);
}

/** The document's schema violations (empty when valid). */
export function validateCycloneDx(version: CycloneDxVersion, document: unknown): ErrorDetail[] {
  if (cycloneDxValidator(version, 'fast')(document)) return [];
  const details = boundedDetails(version, document);
  // Both compile the same schema, so `detailed` fails too; should it ever not, still reject.
  return details.length > 0 ? details : [{ path: '/', message: 'is invalid' }];
}
