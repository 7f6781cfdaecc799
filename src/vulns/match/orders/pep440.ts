import { compare, valid } from '@renovatebot/pep440';
import { type VersionOrder, sign } from './order.js';

/**
 * PEP 440 (PyPI) through `@renovatebot/pep440`, a port of Python's `packaging.version`. Strings
 * outside PEP 440 (the legacy versions `packaging` dropped in 22.0) are not versions here: they
 * match only by exact membership in an advisory's `versions[]`.
 */
export const pep440Order: VersionOrder = {
  valid: (v) => valid(v) !== null,
  compare: (a, b) => sign(compare(a, b)),
};
