import type { FastifyRequest } from 'fastify';
import { type Config, publicBaseUrl } from '../config.js';
import type { Scope } from '../keys/scopes.js';

// What the empty pages teach: the exact commands that connect an organisation's systems, with
// this server's real address (PUBLIC_URL, else the address the browser used) and the
// organisation's own names, so that a command copied from the page runs as it is.

/** A host as a browser may send it; anything else (a header made up by hand) falls back to the configured address. */
const PLAIN_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** Where this organisation's systems reach the API. */
export function apiBaseUrl(request: FastifyRequest, config: Config): string {
  const base =
    config.publicUrl ??
    (PLAIN_HOST.test(request.host) && (request.protocol === 'http' || request.protocol === 'https')
      ? `${request.protocol}://${request.host}`
      : publicBaseUrl(config));
  return `${base}/api/v1/external`;
}

/** A SKU to show in examples: the organisation's first product, or the walk-through's router. */
export const EXAMPLE_SKU = 'RTR-100';

export interface FirstSteps {
  addProduct: string;
  erpKey: string;
  ciKey: string;
  pushSbom: string;
  reportSignal: string;
}

/** The commands behind each first step, for organisation `org` (a slug: letters, digits, hyphens) and product `sku`. */
export function firstSteps(api: string, org: string, sku: string): FirstSteps {
  return {
    addProduct: `npx cra-admin product add --org ${org} --sku ${EXAMPLE_SKU} --name "Router 100"`,
    erpKey: `npx cra-admin key create --org ${org} --name erp --scopes products:read,incidents:write,compliance:read`,
    ciKey: `npx cra-admin key create --org ${org} --name ci --scopes products:write`,
    pushSbom: [
      `curl -fsS -X POST "${api}/products/${sku}/sbom" \\`,
      '    -H "X-CRA-API-Key: $CI_KEY" -H "Content-Type: application/json" \\',
      '    --data-binary @bom.json',
    ].join('\n'),
    reportSignal: [
      `curl -fsS -X POST "${api}/incidents" -H "X-CRA-API-Key: $KEY" \\`,
      '    -H "Content-Type: application/json" \\',
      `    -d '{"description":"Telnet is reachable on the WAN interface","sku":"${sku}"}'`,
    ].join('\n'),
  };
}

/** How to use a key just created: the secret in KEY, then one request per scope it holds. */
export function keyUsage(api: string, secret: string, scopes: readonly Scope[], sku: string): string {
  const lines = [`export KEY='${secret}'`];
  if (scopes.includes('products:read')) lines.push('# the product catalogue', `curl -fsS "${api}/products" -H "X-CRA-API-Key: $KEY"`);
  if (scopes.includes('compliance:read'))
    lines.push('# the compliance score', `curl -fsS "${api}/compliance-score" -H "X-CRA-API-Key: $KEY"`);
  if (scopes.includes('incidents:write')) lines.push('# report a security signal', firstSteps(api, '', sku).reportSignal);
  if (scopes.includes('products:write'))
    lines.push(`# push an SBOM (CycloneDX or SPDX JSON) for ${sku}`, firstSteps(api, '', sku).pushSbom.replace('$CI_KEY', '$KEY'));
  return lines.join('\n');
}
