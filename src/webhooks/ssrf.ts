import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../errors.js';

// Server-side request forgery guard for endpoint URLs (webhooks.md): https only, and no address
// in a loopback, private, link-local, CGNAT, metadata or otherwise non-public range (nor one
// that tunnels or translates to IPv4: NAT64, 6to4, Teredo, IPv4-translated), checked when
// an endpoint is added and again at every delivery (DNS can change). The delivery then connects to
// exactly the addresses that were checked (see send.ts), so a second resolution cannot swap them.

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Host name → every address it resolves to; injectable so tests can resolve names to anything. */
export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", includes the unspecified 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, includes the 169.254.169.254 metadata service
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated, RFC 7526): forwards into tunnels
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['::', 96], // IPv4-compatible (deprecated)
  ['::ffff:0:0:0', 96], // IPv4-translated (RFC 2765): carries any IPv4 address, private ones included
  ['64:ff9b::', 96], // NAT64: would reach any IPv4 address, private ones included
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: a tunnel whose server and client addresses are IPv4, private ones included
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (deprecated, RFC 7526): embeds an IPv4 address, 2002:7f00:1:: is 127.0.0.1
  ['fc00::', 7], // unique local, includes the fd00:ec2::254 metadata service
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/**
 * True for any address outside the public internet. IPv4-mapped IPv6 forms (::ffff:10.0.0.1,
 * ::ffff:a00:1) are judged as the IPv4 address they carry: BlockList maps them.
 */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return NON_PUBLIC.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

export interface TargetPolicy {
  /** WEBHOOK_ALLOW_PRIVATE=true: non-public addresses and plain http to them are admitted. */
  allowPrivate: boolean;
  lookup: Lookup;
}

export interface Target {
  url: URL;
  /** The checked addresses; the delivery connects to these and no others. */
  addresses: ResolvedAddress[];
}

function refuse(message: string): never {
  throw new AppError('validation_failed', message);
}

/**
 * Parses and checks an endpoint URL without resolving it (what can be said from the text alone).
 * `noun` names the URL in refusals (feeds use the same guard).
 */
export function parseEndpointUrl(raw: string, allowPrivate: boolean, noun = 'an endpoint URL'): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    refuse(`"${raw}" is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) refuse(`${noun} must use https`);
  if (url.username || url.password) refuse(`${noun} may not carry a user name or password`);
  if (!url.hostname) refuse(`${noun} needs a host`);
  if (raw.length > 2000) refuse(`${noun} may be at most 2000 characters`);
  return url;
}

/** Resolves the URL's host and refuses it unless every address is admitted by the policy. */
export async function resolveTarget(raw: string, policy: TargetPolicy, noun = 'an endpoint URL'): Promise<Target> {
  const url = parseEndpointUrl(raw, policy.allowPrivate, noun);
  // WHATWG URL already normalised IPv4 spellings (0x7f.1, 2130706433) to dotted quads.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await policy.lookup(host);
    } catch (error) {
      refuse(`the host "${host}" does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
    }
    if (addresses.length === 0) refuse(`the host "${host}" does not resolve`);
  }
  const nonPublic = addresses.filter((a) => isNonPublicAddress(a.address));
  if (!policy.allowPrivate && nonPublic.length > 0) {
    refuse(`the host "${host}" resolves to ${nonPublic[0]!.address}, a loopback, private, link-local or otherwise non-public address`);
  }
  // Plain http is for private deployments and tests only: never towards the public internet.
  if (url.protocol === 'http:' && nonPublic.length !== addresses.length) refuse(`${noun} must use https`);
  return { url, addresses };
}
