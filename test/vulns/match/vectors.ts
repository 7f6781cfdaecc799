import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { VersionOrder } from '../../../src/vulns/match/version-order.js';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** One group of a reference test suite's vectors, in the kinds the fixture files use. */
export interface VectorGroup {
  valid?: string[];
  invalid?: string[];
  less?: [string, string][];
  equal?: [string, string][];
  notEqual?: [string, string][];
  equalGroups?: string[][];
  ascending?: string[][];
  sorted?: string[][];
  compare?: [string, string, number][];
}

export function readFixture<T>(...path: string[]): T {
  return JSON.parse(readFileSync(join(FIXTURES, ...path), 'utf8')) as T;
}

const sign = (n: number): number => Math.sign(n) || 0;

/** Every pair of a list with the first entry before the second. */
function* laterPairs(list: string[]): Generator<[string, string]> {
  for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) yield [list[i]!, list[j]!];
}

/** Every way a group's vectors disagree with the order, in words (empty when none does). */
export function disagreements(order: VersionOrder, group: VectorGroup): string[] {
  const out: string[] = [];
  const expect = (a: string, b: string, want: number | 'not 0'): void => {
    for (const [x, y, w] of [
      [a, b, want],
      [b, a, want === 'not 0' ? want : -want],
    ] as const) {
      if (!order.valid(x) || !order.valid(y)) {
        out.push(`${JSON.stringify(x)} or ${JSON.stringify(y)} is not valid`);
        return;
      }
      const got = sign(order.compare(x, y));
      if (w === 'not 0' ? got === 0 : got !== w) out.push(`compare(${JSON.stringify(x)}, ${JSON.stringify(y)}) = ${got}, expected ${w}`);
    }
  };
  for (const v of group.valid ?? []) if (!order.valid(v)) out.push(`${JSON.stringify(v)} should be valid`);
  for (const v of group.invalid ?? []) if (order.valid(v)) out.push(`${JSON.stringify(v)} should be invalid`);
  for (const [a, b] of group.less ?? []) expect(a, b, -1);
  for (const [a, b] of group.equal ?? []) expect(a, b, 0);
  for (const [a, b] of group.notEqual ?? []) expect(a, b, 'not 0');
  for (const [a, b, r] of group.compare ?? []) expect(a, b, sign(r));
  for (const list of group.equalGroups ?? []) for (const a of list) for (const b of list) expect(a, b, 0);
  for (const list of group.ascending ?? []) for (const [a, b] of laterPairs(list)) expect(a, b, -1);
  for (const list of group.sorted ?? [])
    for (const [a, b] of laterPairs(list))
      if (sign(order.compare(a, b)) > 0) out.push(`sorted list has ${JSON.stringify(a)} before ${JSON.stringify(b)}`);
  return out;
}

/** How many checks a group holds, so a test can say what it ran. */
export function checkCount(group: VectorGroup): number {
  const pairs = (n: number): number => (n * (n - 1)) / 2;
  return (
    (group.valid?.length ?? 0) +
    (group.invalid?.length ?? 0) +
    (group.less?.length ?? 0) +
    (group.equal?.length ?? 0) +
    (group.notEqual?.length ?? 0) +
    (group.compare?.length ?? 0) +
    (group.equalGroups ?? []).reduce((n, g) => n + g.length * g.length, 0) +
    (group.ascending ?? []).reduce((n, l) => n + pairs(l.length), 0) +
    (group.sorted ?? []).reduce((n, l) => n + pairs(l.length), 0)
  );
}

/** One node:test case per group of a fixture file `{ tests: { name: group } }`. */
export function itFollowsEachGroup(order: VersionOrder, file: string): number {
  const { tests } = readFixture<{ tests: Record<string, VectorGroup> }>('versions', file);
  let total = 0;
  for (const [name, group] of Object.entries(tests)) {
    total += checkCount(group);
    it(`follows ${name}`, () => assert.deepEqual(disagreements(order, group), []));
  }
  return total;
}
