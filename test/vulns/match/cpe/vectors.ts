import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseWfnValue } from '../../../../src/vulns/match/cpe/parse.js';
import { ATTRIBUTES, type Attribute, type CpeValue, type Wfn, wfnOf, wfnString } from '../../../../src/vulns/match/cpe/wfn.js';

export const FIRMWARE = fileURLToPath(new URL('../../../fixtures/firmware/', import.meta.url));

export function readFirmwareFixture<T>(...path: string[]): T {
  return JSON.parse(readFileSync(join(FIRMWARE, ...path), 'utf8')) as T;
}

/** Expected attribute values as NISTIR 7695 writes them in a WFN (`8\.0\.6001`, ANY, NA). */
export type WfnStrings = Partial<Record<Attribute, string>>;

/** A WFN from its written values; the attributes left out are ANY. */
export function wfnFromStrings(values: WfnStrings): Wfn {
  const parsed: Partial<Record<Attribute, CpeValue>> = {};
  for (const [attribute, text] of Object.entries(values)) parsed[attribute as Attribute] = parseWfnValue(text!);
  return wfnOf(parsed);
}

/** Asserts the attributes `expected` names (all eleven when `all`, the others then ANY). */
export function assertWfn(actual: Wfn, expected: WfnStrings, context: string, all = false): void {
  for (const attribute of ATTRIBUTES) {
    const want = expected[attribute] ?? (all ? 'ANY' : undefined);
    if (want === undefined) continue;
    assert.equal(wfnString(actual[attribute]), wfnString(parseWfnValue(want)), `${context}: ${attribute}`);
  }
}
