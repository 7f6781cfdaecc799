import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Config } from '../config.js';

/**
 * Whether a Host header names this instance (decisions §4): a configured PUBLIC_URL or API_HOSTS
 * name, a loopback name or address, an address of this machine, or the address the request
 * arrived on. Anything else is a name the client chose, which must never be echoed into a
 * document a cache could keep (the OpenAPI `servers`).
 */
export function ownHostMatcher(config: Pick<Config, 'apiHosts' | 'publicUrl'>): (host: string, localAddress?: string) => boolean {
  const names = new Set(config.apiHosts);
  if (config.publicUrl) names.add(new URL(config.publicUrl).hostname.toLowerCase().replace(/^\[|\]$/g, ''));
  const addresses = new Set(
    Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((i) => i.address.toLowerCase()),
  );
  return (host, localAddress) => {
    const name = hostName(host);
    if (names.has(name) || name === 'localhost' || name.endsWith('.localhost')) return true;
    if (isIP(name) === 0) return false;
    if (name.startsWith('127.') || name === '::1' || addresses.has(name)) return true;
    return localAddress !== undefined && localAddress.toLowerCase().replace(/^::ffff:/, '') === name;
  };
}

/** The host name of a Host header: lower case, without port or IPv6 brackets. */
function hostName(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(1, lower.indexOf(']'));
  return lower.replace(/:\d+$/, '');
}
