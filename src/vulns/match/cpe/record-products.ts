import type { NvdConfiguration } from './configurations.js';
import { parseCpe } from './parse.js';
import { textOf, type Wfn } from './wfn.js';

// Which components a record can concern, so that a matcher evaluates a record against the few
// components that share a (vendor, product) with one of its criteria rather than against the
// whole revision: to every other component, every entry answers "not this product", so leaving
// them out changes nothing (the SBOM's subject aside, which is always passed).

/** `vendor:product` of a name whose vendor and product are literal values, else null. */
export function productKey(wfn: Wfn): string | null {
  const [vendor, product] = [textOf(wfn.vendor), textOf(wfn.product)];
  const literal = wfn.vendor.kind === 'value' && wfn.vendor.before === '' && wfn.vendor.after === '' && wfn.product.kind === 'value';
  return literal && wfn.product.before === '' && wfn.product.after === '' ? `${vendor}:${product}` : null;
}

/**
 * The `vendor:product` keys a record's criteria name. `everyProduct` is true when a criterion's
 * vendor or product is ANY or a pattern: then no key can narrow the components down.
 */
export function productsNamed(configurations: readonly NvdConfiguration[]): { keys: Set<string>; everyProduct: boolean } {
  const keys = new Set<string>();
  let everyProduct = false;
  for (const configuration of configurations)
    for (const node of configuration.nodes ?? [])
      for (const entry of node.cpeMatch ?? []) {
        const parsed = parseCpe(entry.criteria ?? '', 'strict');
        if (!parsed.ok) continue; // an unreadable criterion matches no component
        const key = productKey(parsed.wfn);
        if (key === null) everyProduct = true;
        else keys.add(key);
      }
  return { keys, everyProduct };
}
